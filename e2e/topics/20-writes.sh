# SPDX-License-Identifier: GPL-2.0
#
# Writes: what is written is what is read back, from the page cache and
# from the server, whatever writeback does meanwhile.  Writeback is made to
# run concurrently with the writes (small dirty limits), the fileserver is
# stopped for longer than a call's timeout in the middle of stores, and the
# exerciser (e2e/helpers/afs-exercise.c) checks every read against a
# shadow copy.  Seeds are fixed: a failure names its seed and mode, and
# reruns the same way.

check "mount %$CELL:e2e for the write checks" afs-mount %$CELL:e2e $AFS
mkdir -p $AFS/w
writes_before_kb=$(volume_kb e2e)

check "64 MiB written, read back after dropping caches, same checksum" sh -c "
	dd if=/dev/urandom of=/tmp/src bs=1M count=64 2>/dev/null &&
	md5sum < /tmp/src > /tmp/big.md5 && dd if=/tmp/src of=$AFS/w/big bs=1M 2>/dev/null &&
	echo 3 > /proc/sys/vm/drop_caches && md5sum < $AFS/w/big | cmp - /tmp/big.md5"

# writes_pipe <name>: the source streamed through a pipe in small writes
# and read back from the server; on a difference, say how many bytes and
# in which pages.
writes_pipe() {
	cat /tmp/src | tee $AFS/w/$1 > /dev/null || return 1
	echo 3 > /proc/sys/vm/drop_caches
	cmp -l /tmp/src $AFS/w/$1 > /tmp/diffs
	echo "$(wc -l < /tmp/diffs) bytes differ, in these pages:"
	awk '{ print int(($1 - 1) / 4096) }' /tmp/diffs | uniq -c | head -n 5
	rm -f $AFS/w/$1
	[ ! -s /tmp/diffs ]
}

# Writeback concurrent with the writes: flush past 256 KiB of dirty data,
# in the background past 64 KiB.
writes_small_dirty() {
	echo 65536 > /proc/sys/vm/dirty_background_bytes
	echo 262144 > /proc/sys/vm/dirty_bytes
}
writes_default_dirty() {
	echo 0 > /proc/sys/vm/dirty_bytes
	echo 0 > /proc/sys/vm/dirty_background_bytes
	echo 20 > /proc/sys/vm/dirty_ratio
	echo 10 > /proc/sys/vm/dirty_background_ratio
	echo 3000 > /proc/sys/vm/dirty_expire_centisecs
}

for i in 1 2 3 4 5; do
	check "64 MiB streamed through a pipe in small writes, read back intact ($i of 5)" \
		writes_pipe streamed$i
done

writes_small_dirty

# Background writeback carries on after a file's first fsync(): 192 KiB
# written past the 64 KiB background limit, through a descriptor kept open
# (a close() would store it), is stored by the flusher, not by us.
writes_background() {
	dd if=/dev/urandom of=$AFS/w/bg bs=4k count=1 conv=fsync 2>/dev/null || return 1
	trace_on afs_store
	exec 3>> $AFS/w/bg
	head -c 196608 /dev/urandom >&3
	i=0
	until grep -q 'kworker.* afs_store: .* begin ' $T/trace || [ $i -ge 30 ]; do
		sleep 1
		i=$((i + 1))
	done
	trace_off afs_store
	exec 3>&-
	grep ' afs_store: ' $T/trace | head -n 5
	echo "the flusher's first store came after $i s"
	[ $i -lt 30 ]
}
check "background writeback stores a file after its first fsync" writes_background

# writes_exercise <mode> <procs> <ops> <seed>...: one check per seed.
writes_exercise() {
	mode=$1 procs=$2 ops=$3
	shift 3
	for seed in "$@"; do
		check "exerciser: $mode, $procs process(es), $ops ops, seed $seed" \
			afs-exercise -m $mode -p $procs -n $ops -s $seed $AFS/w
	done
}
writes_exercise single 1 1000 1 2 3 4 5 6
writes_exercise multi 3 500 11 12 13 14
writes_exercise shared 2 600 21 22 23 24 25 26

# A store whose reply is lost (e2e/lib/stores.sh): the fileserver stops
# answering while the exerciser runs, and the store of another file goes
# on the wire as it stops; the server stays stopped until that store has
# timed out.  A call of the exerciser that fails with a timeout meanwhile
# is tried again (-r), as an application may.  The data of both must come
# out right, and no store the server applied late may be taken for
# another client's change.

# writes_lost_reply <seed>
writes_lost_reply() {
	taken_before=$(own_store_taken_for_change)
	f=$AFS/w/lost-$1
	head -c 262144 /dev/urandom > /tmp/lost.src
	: > $f || return 1
	trace_on afs_make_fs_call afs_call_done
	afs-exercise -r -m multi -p 2 -n 800 -s $1 $AFS/w > /tmp/ex.out 2>&1 &
	ex=$!
	sleep 1
	lose_store_reply $f /tmp/lost.src > /tmp/lost-$1.out
	lost=$?
	wait $ex
	rc=$?
	trace_off afs_make_fs_call afs_call_done
	cat /tmp/ex.out /tmp/lost-write.out /tmp/lost-$1.out
	echo "calls that timed out (ETIME, ECONNRESET), by operation:" \
	     "$(trace_timed_out | tr '\n' ' ')"
	store_kept_intact $f /tmp/lost.src || rc=1
	rm -f $f
	taken=$(($(own_store_taken_for_change) - taken_before))
	echo "own stores taken for another's change: $taken"
	[ $rc -eq 0 ] && [ $lost -eq 0 ] && [ $taken -eq 0 ] &&
		grep -Eq '^exit [03]$' /tmp/lost-write.out
}

for seed in 31 32; do
	check "exerciser and one more store, the fileserver stopped until that store timed out, seed $seed: data intact, no own store taken for a change" \
		writes_lost_reply $seed
done
writes_default_dirty

# A shared-writable fault waiting for a store to a stopped fileserver dies
# at once when killed, and nothing stays in D state once it is back.
writes_killed_mkwrite() {
	dd if=/dev/urandom of=$AFS/w/mk bs=4k count=1 2>/dev/null || return 1
	fs=$(pidof fileserver)
	kill -STOP $fs
	mkwrite-wait $AFS/w/mk > /tmp/mk.out 2>&1 &
	mk=$!
	sleep 3
	# The scenario: the writer is blocked in the fault, not done or gone.
	state=$(awk '{ print $3 }' /proc/$mk/stat)
	echo "the writer is in state $state"
	[ "$state" = D ] || { kill -CONT $fs; kill -KILL $mk; return 1; }
	kill -KILL $mk
	i=0
	while [ -e /proc/$mk ] && [ $i -lt 10 ]; do sleep 1; i=$((i + 1)); done
	gone=$([ -e /proc/$mk ] && echo no || echo yes)
	kill -CONT $fs
	echo "gone within $i s after SIGKILL: $gone"
	wait $mk 2>/dev/null
	# The fsync()ing child finishes once the server is back.
	i=0
	while running 'mkwrite-wait( |$)' > /dev/null && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
	cat /tmp/mk.out
	echo "the fsync()ing child was done $i s after the server came back"
	[ $gone = yes ] && ! running 'mkwrite-wait( |$)'
}
check "a writer killed while page_mkwrite waits on a stopped fileserver goes away" \
	writes_killed_mkwrite

check "truncation racing shared-writable mmap stores, then content intact" \
	trunc-mmap-race $AFS/w/race 20

# What a shared mapping writes past the end of a file, in the page that
# holds the end, is never stored; once the file grows over it, it must
# read as the zeros the server has there, from the page cache and after
# dropping it (xfstests generic/363 finds it with fsx).  Growth by
# ftruncate() and by writes in the same page and in the next, with the
# mapping stored and gone, or still mapped and dirty ("live").
check "mapped bytes past the end read as zeros after ftruncate() grows the file" \
	eof-zero $AFS/w/eof1 1000 truncate 8192
check "mapped bytes past the end read as zeros after a write in the same page" \
	eof-zero $AFS/w/eof2 1000 write 3000
check "mapped bytes past the end read as zeros after a write in the next page" \
	eof-zero $AFS/w/eof3 5000 write 9000
check "... after ftruncate(), the mapping still dirty" \
	eof-zero $AFS/w/eof4 1000 truncate 3000 live
check "... after a write in the same page, the mapping still dirty" \
	eof-zero $AFS/w/eof5 1000 write 3000 live
check "... after a write in the next page, the mapping still dirty" \
	eof-zero $AFS/w/eof6 1000 write 9000 live
rm -f $AFS/w/eof[1-6]

# Stores refused for want of quota: fsync() reports the error, the data is
# kept, and once the quota allows it a later fsync() stores it.
writes_quota() {
	volume_create e2eq || return 1
	vos setfields e2eq -maxquota 1024 -noauth || return 1
	mkdir -p /q && afs-mount %$CELL:e2eq /q || return 1
	dd if=/dev/urandom of=/tmp/q bs=1M count=4 2>/dev/null
	afs-pwrite /q/f 0 /tmp/q > /tmp/q.out
	rc=$?
	echo "with a 1 MiB quota: afs-pwrite exit $rc: $(cat /tmp/q.out)"
	ok=0
	[ $rc -eq 3 ] && grep -q '^fsync: Disk quota exceeded$' /tmp/q.out || ok=1
	vos setfields e2eq -maxquota 0 -noauth
	# Nothing written now: fsync() stores what was kept.
	afs-pwrite /q/f 0 /dev/null || ok=1
	echo 3 > /proc/sys/vm/drop_caches
	cmp /tmp/q /q/f || ok=1
	umount /q
	rm -f /tmp/q
	return $ok
}
check "fsync after a store refused for quota returns the error; the data is kept" \
	writes_quota

# The stores of a 1 MiB write at a known offset, read from the trace: they
# cover exactly what was written, and the file positions sent agree.
writes_traced() {
	dd if=/dev/urandom of=/tmp/t bs=1k count=1024 2>/dev/null
	: > $AFS/w/traced
	trace_on afs_store afs_send_data
	afs-pwrite $AFS/w/traced 3145851 /tmp/t
	rc=$?
	trace_off afs_store afs_send_data
	[ $rc -eq 0 ] || return 1
	ino=$(printf '%x' $(stat -c %i $AFS/w/traced))
	grep "afs_store: [0-9a-f]*:$ino:" $T/trace > /tmp/stores
	cat /tmp/stores
	# Sorted "done" ranges without an error must tile [3145851, +1 MiB).
	sed -n 's/.* done p=\([0-9a-f]*\) n=\([0-9a-f]*\) e=0$/\1 \2/p' /tmp/stores |
	while read p n; do echo $((0x$p)) $((0x$n)); done | sort -n > /tmp/ranges
	want=3145851 end=$((3145851 + 1048576))
	while read p n; do
		[ "$p" -eq "$want" ] || { echo "a gap or overlap at $want (next store at $p)"; return 1; }
		want=$((p + n))
	done < /tmp/ranges
	[ "$want" -eq "$end" ] || { echo "stores end at $want, not $end"; return 1; }
	grep -q "afs_send_data: .* o=$(printf '%x' 3145851) " $T/trace ||
		{ echo "no send from file position 3145851"; grep afs_send_data $T/trace | head; return 1; }
}
check "the stores of a 1 MiB write at a known offset cover exactly what was written" \
	writes_traced

# Two writers of one file and a sync() loop make writeback of the file start
# from several places at once; its stores, read from the trace, must never
# overlap in time.
writes_serialised() {
	trace_on afs_store
	afs-exercise -m shared -p 2 -n 300 -s 41 $AFS/w
	rc=$?
	trace_off afs_store
	grep ' afs_store: ' $T/trace | awk '
		{ fid = $0; sub(/.* afs_store: /, "", fid); sub(/ .*/, "", fid) }
		/ begin / { if (open[fid]) overlaps++; open[fid] = 1; stores++ }
		/ done / { open[fid] = 0 }
		END { printf "%d stores, %d begun while another of the file was under way\n",
		      stores, overlaps; exit overlaps > 0 || stores == 0 }'
	[ $? -eq 0 ] && [ $rc -eq 0 ]
}
check "stores of one file never overlap, with two writers and a sync() loop" \
	writes_serialised

# A store refused for every key (fsync reports it, the data is kept) is
# in the tokens topic: here the client's address is in
# system:administrators, which the fileserver lets store whatever the list
# says.

writes_grew() {
	after_kb=$(volume_kb e2e)
	echo "$writes_before_kb K before, $after_kb K after"
	[ -n "$writes_before_kb" ] && [ -n "$after_kb" ] &&
		[ "$after_kb" -ge $((writes_before_kb + 60000)) ]
}
check "the server's view: vos examine shows the volume grew" writes_grew
check "umount after the write checks" umount $AFS
rm -f /tmp/src
