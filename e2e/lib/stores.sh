# SPDX-License-Identifier: GPL-2.0
#
# A store whose reply is lost: the fileserver stops answering for longer
# than a call's 20 s timeout while a store is in flight, then carries on,
# and may apply the store after the client has given up on it.

# own_store_taken_for_change: the kernel log's count of a file's own
# stores that kAFS took for another client's change ("vnode modified ...
# FS.StoreData"), dropping its cache.
own_store_taken_for_change() {
	dmesg | grep -c 'vnode modified .* FS\.StoreData'
}

# lose_store_reply <file> <source>: stop the fileserver; in the background,
# write <source> into <file> (which must exist: a create needs the server)
# and fsync() it; keep the server stopped until the trace shows a store
# that ended in a timeout, 60 s at most; let the server go on and wait for
# the writer.  The caller traces afs_make_fs_call and afs_call_done.
# Fails if no store timed out (then the calls in flight are printed).
# Whether <file>'s own store was among them is reported, not required: with
# the exerciser's writers, it was not always (the soak, 2026-12-07).  The
# writer's output and exit status (afs-pwrite: 0, or 3 if only its fsync()
# failed) are left in /tmp/lost-write.out.
lose_store_reply() {
	vnode=$(printf '%06x' "$(stat -c %i "$1")")
	fs=$(pidof fileserver)
	kill -STOP $fs
	afs-pwrite "$1" 0 "$2" > /tmp/lost-write.out 2>&1 &
	writer=$!
	waited=0
	until trace_timed_out | grep -Eq ' FS[.]StoreData(64)?$' || [ $waited -ge 60 ]; do
		sleep 1
		waited=$((waited + 1))
	done
	trace_timed_out | grep -Eq ' FS[.]StoreData(64)?$'
	lost=$?
	# What was in flight at the end of the stop, for a run that saw no
	# store time out.
	if [ $lost -ne 0 ]; then
		echo "uptime $(cut -d' ' -f1 /proc/uptime); calls in flight (call, made at, fid, op):"
		trace_open_calls | head -n 12
		echo "timed out by operation: $(trace_timed_out | tr '\n' ' ')"
	fi
	kill -CONT $fs
	own=no
	trace_timed_out $vnode | grep -Eq ' FS[.]StoreData(64)?$' && own=yes
	wait $writer
	echo "exit $?" >> /tmp/lost-write.out
	echo "the fileserver was stopped for $waited s or more;" \
	     "a store timed out: $([ $lost -eq 0 ] && echo yes || echo no);" \
	     "the store of $1 among them: $own"
	return $lost
}

# store_kept_intact <file> <source>: whatever the last fsync() of <file>
# said, the next one stores what was kept, and <file> reads back from the
# server as <source>.
store_kept_intact() {
	afs-pwrite "$1" 0 /dev/null || return 1
	echo 3 > /proc/sys/vm/drop_caches
	cmp "$2" "$1"
}
