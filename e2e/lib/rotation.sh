# SPDX-License-Identifier: GPL-2.0
#
# The rotation topic's checks (e2e/topics/30-rotation.sh), as functions, so
# that each runs in a shell of its own under run_check's time limit.  Sourced
# after tap.sh and cell.sh.  Each prints what it measured on lines that begin
# "measured:", which the topic copies into the TAP as comments; a check that
# fails shows all its output as diagnostics.  A check that stops a server
# starts it again, whatever happened.

FS2=127.1.0.2
ROT_VOL=rot
ROT_RW=/mnt/rot-rw
ROT_RO=/mnt/rot-ro
ROT_GONE=/mnt/rot-gone

rot_now() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }
rot_packets() { cat /sys/class/net/lo/statistics/rx_packets; }
rot_drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# rot_server_up <address>: its fs bnode started, and the fileserver serving.
rot_server_up() {
	bos start "$1" fs -noauth
	wait_for 90 sh -c "bos status $1 fs -noauth | grep -q 'file server running'" &&
		wait_for 60 vos listpart "$1" -noauth
}

rot_servers_up() { rot_server_up "$ADDR" && rot_server_up $FS2; }

# rot_seen <dmesg lines before>: what kAFS logged since then, each line once
# with a count, the operation number left out.
rot_seen() {
	dmesg | tail -n "+$(($1 + 1))" | grep 'kAFS' | sed 's/^\[[^]]*\] //;
		s/ (op=[0-9a-f]*)//' | sort | uniq -c | sed 's/^ *//' | head -n 12
}

# A volume with its RW site on the first server and RO sites on both, a
# 16 MiB file and a small one in it, mounted RW and RO.
rot_setup() {
	volume_create $ROT_VOL || return 1
	mkdir -p $ROT_RW $ROT_RO $ROT_GONE
	afs-mount "%$CELL:$ROT_VOL" $ROT_RW || return 1
	dd if=/dev/urandom of=/tmp/rot-big bs=1M count=16 2> /dev/null
	md5sum < /tmp/rot-big > /tmp/rot-big.md5
	cp /tmp/rot-big $ROT_RW/big && echo small > $ROT_RW/small && sync || return 1
	vos addsite "$ADDR" a $ROT_VOL -noauth &&
		vos addsite $FS2 a $ROT_VOL -noauth &&
		vos release $ROT_VOL -noauth || return 1
	afs-mount "#$CELL:$ROT_VOL.readonly" $ROT_RO &&
		md5sum < $ROT_RO/big | cmp - /tmp/rot-big.md5
}

# VBUSY for 5 s on the RW volume while it is used (a new file written, the
# first call certain to reach the server): the write waits it out, sleeping
# between tries rather than spinning (counted in packets on lo).
rot_busy() {
	vos offline -server "$ADDR" -partition a -id $ROT_VOL -busy -sleep 5 -noauth &
	vos=$!
	wait_for 5 sh -c "vos examine $ROT_VOL -noauth | grep -q 'is busy'" ||
		echo "measured: the volume never showed busy"
	rx0=$(rot_packets)
	t0=$(rot_now)
	# In a shell of its own: vos's SIGCHLD would interrupt the wait.
	sh -c "echo busy > $ROT_RW/busy-new"
	rc=$?
	t=$(($(rot_now) - t0))
	packets=$(($(rot_packets) - rx0))
	wait $vos
	rot_drop_caches
	out=$(cat $ROT_RW/busy-new)
	echo "measured: write: status $rc in $t s, $packets packets on lo; read back '$out'"
	[ $rc -eq 0 ] && [ "$out" = busy ] && [ $t -ge 2 ] && [ $t -le 15 ] &&
		[ $packets -lt 2000 ]
}

# One RO site offline (VOFFLINE), each in turn: reads carry on from the other.
rot_offline_site() {
	for server in "$ADDR" $FS2; do
		vos offline -server "$server" -partition a -id $ROT_VOL.readonly -noauth ||
			return 1
		rot_drop_caches
		md5sum < $ROT_RO/big | cmp - /tmp/rot-big.md5
		rc=$?
		vos online -server "$server" -partition a -id $ROT_VOL.readonly -noauth
		echo "measured: site $server offline: read status $rc"
		[ $rc -eq 0 ] || return 1
	done
}

# rot_damage <copy read>: how it differs from /tmp/rot-big, on "measured:"
# lines: its size, the 4 KiB blocks that differ (as ranges, the first few),
# and whether the differing bytes read as zeros.
rot_damage() {
	echo "measured: read $(stat -c %s "$1") bytes of $(stat -c %s /tmp/rot-big)"
	cmp -l "$1" /tmp/rot-big 2> /dev/null | awk '
		{ b = int(($1 - 1) / 4096); n++; if ($2 == 0) z++ }
		n > 1 && b > last + 1 { if (++r <= 8) print "measured: blocks " first "-" last " differ"; first = b }
		n == 1 { first = b }
		{ last = b }
		END { if (n && ++r <= 8) print "measured: blocks " first "-" last " differ";
		      print "measured: " n + 0 " bytes in " r + 0 " ranges differ, " z + 0 " of them read as 0" }'
}

# rot_read_right <status> <what happened...>: whether the reader (slow-read,
# its output in /tmp/rot-read, its errors in /tmp/rot-read.err) exited with
# <status> 0 and read /tmp/rot-big, on one "measured:" line.  A wrong copy
# is described, and the page cache read again, to tell a wrong copy from
# wrong cached pages.
rot_read_right() {
	status=$1
	shift
	md5sum < /tmp/rot-read | cmp -s - /tmp/rot-big.md5
	rc=$?
	echo "measured: $*, status $status," \
	     "checksum $([ $rc -eq 0 ] && echo right || echo wrong) $(cat /tmp/rot-read.err)"
	if [ $rc -ne 0 ]; then
		rot_damage /tmp/rot-read
		md5sum < $ROT_RO/big | cmp -s - /tmp/rot-big.md5 &&
			echo "measured: the page cache reads right" ||
			echo "measured: the page cache reads wrong too"
	fi
	rm -f /tmp/rot-read
	[ $status -eq 0 ] && [ $rc -eq 0 ]
}

# bos stop <server> in the middle of a read of the RO volume, for each
# server in turn (one of them is the one being read from): the read
# completes from the other with the right checksum.  Both started again,
# and the first server is used again once the second is stopped.
rot_bos_stop() {
	for server in "$ADDR" $FS2; do
		rot_drop_caches
		t0=$(rot_now)
		slow-read $ROT_RO/big 65536 20 > /tmp/rot-read 2> /tmp/rot-read.err &
		reader=$!
		sleep 2
		bos stop "$server" fs -wait -noauth
		wait $reader
		status=$?
		t=$(($(rot_now) - t0))
		rot_server_up "$server"
		rot_read_right $status "$server stopped during the read: read in $t s" ||
			return 1
	done

	t0=$(rot_now)
	bos stop $FS2 fs -wait -noauth
	wait_for 90 sh -c "echo 3 > /proc/sys/vm/drop_caches &&
		md5sum < $ROT_RO/big | cmp - /tmp/rot-big.md5"
	rc=$?
	echo "measured: $FS2 stopped, $ADDR served the read again after" \
	     "$(($(rot_now) - t0)) s: status $rc"
	rot_server_up $FS2 && [ $rc -eq 0 ]
}

# rot_fileserver_pid <address>: the fileserver process serving <address>:
# the one in the guest's own mount namespace for $ADDR, the other one (which
# cell_add_fileserver started in a namespace of its own) for $FS2.
rot_fileserver_pid() {
	for pid in $(pidof fileserver); do
		ns=$(readlink /proc/$pid/ns/mnt) || continue
		if [ "$ns" = "$(readlink /proc/1/ns/mnt)" ]; then
			[ "$1" = "$ADDR" ] && echo $pid
		else
			[ "$1" = $FS2 ] && echo $pid
		fi
	done | grep . || { echo "no fileserver process for $1" >&2; return 1; }
}

# rot_mid_reply <address>: whether a call of ours to the fileserver on
# <address> is receiving its reply and has handed at least one DATA packet
# to kAFS (RxSeq, the last packet taken, is not 0): in a FetchData64, some
# of the data is then in the page cache.
rot_mid_reply() {
	awk -v s="$1:7000" '$3 == s && $7 == "Clt" && $9 == "ClRcvRpl" &&
		$14 != "00000000" { f = 1 } END { exit !f }' /proc/net/rxrpc/calls
}

# A fileserver killed while a call from it is in the middle of its reply,
# each server in turn, three rounds: the read goes on from the other server
# and reads right.  The retried fetch must start at the buffer's start
# again (patch 0015): before that, its data landed shifted by what the cut
# call had delivered, the rest was dropped, and the read succeeded with the
# wrong bytes.  Reads whole chunks with no pause, so that calls follow one
# another and one is caught in flight; a round whose read ends before that
# tests nothing, and the check fails if no round caught one.
rot_kill_mid_fetch() {
	kills=0
	for round in 1 2 3; do
		for server in "$ADDR" $FS2; do
			pid=$(rot_fileserver_pid "$server") || return 1
			rot_drop_caches
			slow-read $ROT_RO/big 65536 0 > /tmp/rot-read 2> /tmp/rot-read.err &
			reader=$!
			caught=no
			while kill -0 $reader 2> /dev/null; do
				if rot_mid_reply "$server"; then
					kill -KILL $pid && caught=yes kills=$((kills + 1))
					break
				fi
			done
			wait $reader
			status=$?
			t0=$(rot_now)
			rot_server_up "$server" > /tmp/rot-up.out 2>&1 ||
				{ cat /tmp/rot-up.out; echo "measured: $server did not come back"; return 1; }
			rot_read_right $status "round $round, $server killed mid-reply:" \
				"$caught, back in $(($(rot_now) - t0)) s" || return 1
		done
	done
	echo "measured: $kills of 6 kills caught a call mid-reply"
	[ $kills -gt 0 ]
}

# vos move of the RW volume to the second server while a writer appends
# 64 KiB at a time, each fsync'd: every write succeeds and the file is whole.
rot_move() {
	dd if=/dev/urandom of=/tmp/rot-app bs=64k count=96 2> /dev/null
	(
		i=0
		while [ $i -lt 96 ]; do
			dd if=/tmp/rot-app of=$ROT_RW/appended bs=64k skip=$i seek=$i \
				count=1 conv=notrunc,fsync 2> /tmp/rot-dd.err ||
				{ cat /tmp/rot-dd.err; exit 1; }
			i=$((i + 1))
		done
	) &
	writer=$!
	sleep 2
	vos move -id $ROT_VOL -fromserver "$ADDR" -frompartition a \
		-toserver $FS2 -topartition a -noauth
	moved=$?
	wait $writer
	wrote=$?
	rot_drop_caches
	echo "measured: vos move: status $moved; writer: status $wrote"
	[ $moved -eq 0 ] && [ $wrote -eq 0 ] &&
		vos examine $ROT_VOL -noauth | grep -q "^ *server $FS2 partition /vicepa RW Site" &&
		cmp /tmp/rot-app $ROT_RW/appended
}

# vos remove of a mounted volume: a clear error, quickly, and umount works.
rot_remove() {
	volume_create rotgone && afs-mount "%$CELL:rotgone" $ROT_GONE &&
		echo x > $ROT_GONE/f && sync || return 1
	vos remove -server "$ADDR" -partition a -id rotgone -noauth || return 1
	rot_drop_caches
	t0=$(rot_now)
	cat $ROT_GONE/f > /dev/null 2> /tmp/rot-err
	rc=$?
	t=$(($(rot_now) - t0))
	echo "measured: read after vos remove: status $rc in $t s: $(cat /tmp/rot-err)"
	ls $ROT_GONE > /dev/null 2>> /tmp/rot-err
	echo "measured: ls: $(tail -n 1 /tmp/rot-err)"
	[ $rc -ne 0 ] && [ $t -le 30 ] &&
		grep -qE 'No such file|Stale file handle|Remote I/O error|No medium found' \
			/tmp/rot-err &&
		umount $ROT_GONE
}

# Every fileserver stopped: an operation fails in bounded time with a clear
# error (not EDESTADDRREQ); started again, the same mount works.
rot_all_down() {
	bos stop "$ADDR" fs -wait -noauth && bos stop $FS2 fs -wait -noauth || return 1
	rot_drop_caches
	t0=$(rot_now)
	cat $ROT_RW/small > /dev/null 2> /tmp/rot-err
	rc=$?
	t=$(($(rot_now) - t0))
	echo "measured: read with every fileserver down: status $rc in $t s: $(cat /tmp/rot-err)"
	bos start "$ADDR" fs -noauth
	bos start $FS2 fs -noauth
	t0=$(rot_now)
	wait_for 120 sh -c "echo 3 > /proc/sys/vm/drop_caches && [ \"\$(cat $ROT_RW/small)\" = small ]"
	back=$?
	echo "measured: the mount answered again after $(($(rot_now) - t0)) s: status $back"
	rot_servers_up
	[ $rc -ne 0 ] && [ $t -le 60 ] && ! grep -q 'Destination address required' /tmp/rot-err &&
		[ $back -eq 0 ]
}

# Load the fileserver hard (upstream fstests' fsstress, as generic/013 runs
# it) on the RW volume: no store may fail, nor be resent without its data
# (the server's "insufficient data" abort: a retried store whose data had
# already been consumed).
rot_store_errors() {
	dmesg | grep -cE 'Unexpected error from FS.StoreData|insufficient data failure on FS.StoreData'
}

rot_load() {
	before=$(rot_store_errors)
	taken_before=$(own_store_taken_for_change)
	mkdir -p $ROT_RW/stress
	t0=$(rot_now)
	# shellcheck disable=SC2086
	fsstress ${ROT_FSSTRESS:--p 20 -n 400} -r -m 8 -d $ROT_RW/stress > /tmp/rot-fss.out 2>&1
	rc=$?
	after=$(rot_store_errors)
	taken=$(($(own_store_taken_for_change) - taken_before))
	echo "measured: fsstress: status $rc in $(($(rot_now) - t0)) s;" \
	     "StoreData errors: $((after - before));" \
	     "own stores taken for another's change: $taken"
	tail -n 5 /tmp/rot-fss.out
	rm -rf $ROT_RW/stress
	[ $rc -eq 0 ] && [ "$after" -eq "$before" ] && [ $taken -eq 0 ]
}
