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

# vm_dirty_save / vm_dirty_restore: the writeback settings a check changes,
# kept in /tmp/vm-dirty and put back (a limit in bytes, or else its ratio).
VM=/proc/sys/vm
vm_dirty_save() {
	for k in dirty_bytes dirty_background_bytes dirty_ratio \
		 dirty_background_ratio dirty_expire_centisecs; do
		echo "$k $(cat $VM/$k)"
	done > /tmp/vm-dirty
}
vm_dirty_restore() {
	while read -r k v; do
		case $k in
		*_bytes) [ "$v" -eq 0 ] || echo "$v" > $VM/$k ;;
		*_ratio) [ "$(cat $VM/${k%ratio}bytes)" -ne 0 ] || echo "$v" > $VM/$k ;;
		*) echo "$v" > $VM/$k ;;
		esac
	done < /tmp/vm-dirty
}

# lose_store_reply <file> <source>: write <source> into <file> (which must
# exist), kept from writeback and the file held open; stop the fileserver
# and at once, in the background, fsync() <file>, so that its store is on
# the wire before any call in flight at the stop can time out and have the
# server taken for down (which would keep every later store off the wire:
# seed 32 of a CI run, 2026-12-07).  Keep the server stopped until the
# trace shows that store ended in a timeout, 60 s at most; let the server go
# on and wait for the writer.  The caller traces afs_make_fs_call and
# afs_call_done.  Fails if <file>'s store did not time out (then the calls
# in flight and those on <file> are printed).  The writer's output and
# exit status (0, or 3 if only its fsync() failed) are left in
# /tmp/lost-write.out.
#
# The caller's limits are put back once the store is on the wire (10 s at
# most), so that the other writers' data is written back as the caller set
# it during the stop too.
lose_store_reply() {
	vnode=$(printf '%06x' "$(stat -c %i "$1")")
	fs=$(pidof fileserver)
	vm_dirty_save
	echo 60 > $VM/dirty_ratio
	echo 50 > $VM/dirty_background_ratio
	echo 360000 > $VM/dirty_expire_centisecs
	# Held open: kAFS stores a file when its last writer closes it.
	exec 7<> "$1"
	cat "$2" >&7
	kill -STOP $fs
	afs-pwrite "$1" 0 /dev/null 7>&- > /tmp/lost-write.out 2>&1 &
	writer=$!
	waited=0
	until trace_calls_on $vnode | grep -q 'FS[.]StoreData' ||
	      [ $waited -ge 10 ]; do
		sleep 1
		waited=$((waited + 1))
	done
	vm_dirty_restore
	until trace_timed_out $vnode | grep -Eq ' FS[.]StoreData(64)?$' ||
	      [ $waited -ge 60 ]; do
		sleep 1
		waited=$((waited + 1))
	done
	trace_timed_out $vnode | grep -Eq ' FS[.]StoreData(64)?$'
	lost=$?
	# What was in flight at the end of the stop, for a run that saw no
	# store of <file> time out.
	if [ $lost -ne 0 ]; then
		echo "uptime $(cut -d' ' -f1 /proc/uptime); calls in flight (call, made at, fid, op):"
		trace_open_calls | head -n 12
		echo "timed out by operation: $(trace_timed_out | tr '\n' ' ')"
		echo "calls on $1 (vnode $vnode):"
		trace_calls_on $vnode | head -n 12
	fi
	kill -CONT $fs
	exec 7>&-
	wait $writer
	echo "exit $?" >> /tmp/lost-write.out
	vm_dirty_restore
	echo "the fileserver was stopped for $waited s or more;" \
	     "the store of $1 timed out: $([ $lost -eq 0 ] && echo yes || echo no)"
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
