# SPDX-License-Identifier: GPL-2.0
#
# Store fate: what becomes of data whose store fails.  It is dropped only on
# evidence that the file can never take it (docs/write.md), never on an
# errno alone, and an error that may never pass drops it only after so many
# failures, with a log line.  A store is made to fail as a server's answer
# would with fail_function on afs_store_from_cache(), write.c's one attempt
# at a store with one key; stock 6.1 has no such function, so these checks
# run on ours only.  Each check has a volume's superblock of its own, as
# syncfs() reports any error the superblock has recorded.

FF=/sys/kernel/debug/fail_function
FATE=/mnt/fate

# fate_inject <errno> <times>: the next <times> stores (-1: every one) fail
# with -<errno> before they reach the server.
fate_inject() {
	mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
	echo afs_store_from_cache > $FF/inject || return 1
	printf '%#x' "-$1" > $FF/afs_store_from_cache/retval || return 1
	echo 100 > $FF/probability
	echo 1 > $FF/interval
	echo 0 > $FF/verbose
	echo "$2" > $FF/times
}

fate_clear() { echo > $FF/inject; }

# fate_mount <name>: a fresh volume mounted on $FATE/<name>.
fate_mount() {
	volume_create "fate$1" || return 1
	mkdir -p "$FATE/$1" && afs-mount "%$CELL:fate$1" "$FATE/$1"
}

# A store interrupted (the errno of a restart, 512, which
# afs_wait_for_fs_probes() can return) keeps its data and leaves no error
# behind: a later syncfs() of the filesystem, once the data is stored,
# returns 0, not errno 512.  Everything else is stored first, so that the
# one store made to fail is this file's.
fate_syncfs() {
	fate_mount sync || return 1
	sync
	lines=$(dmesg | wc -l)
	# Through a descriptor kept open: a close() would store the data.
	exec 3> "$FATE/sync/f"
	head -c 65536 /dev/urandom >&3 || return 1
	fate_inject 512 1 || return 1
	sync
	left=$(cat $FF/times)
	fate_clear
	dmesg | tail -n "+$((lines + 1))" | grep 'kAFS: Store of'
	echo "injected failures left after sync(): $left (0: the store failed)"
	afs-syncfs "$FATE/sync/f"
	rc=$?
	exec 3>&-
	umount "$FATE/sync"
	[ "$left" = 0 ] && [ $rc -eq 0 ]
}

# fate_kept <name> <errno>: a store that fails with -<errno>, with no
# evidence that the file or volume is gone, fails the fsync() that made it;
# the data is kept, and the next store (afs-pwrite's close()) stores it.
# To show that it is on the server, not only still in the page cache, every
# store is made to fail with EROFS (which drops the data) while the volume
# is unmounted, and the file is read from a new mount.
fate_kept() {
	fate_mount "$1" || return 1
	f=$FATE/$1/f
	head -c 65536 /dev/urandom > /tmp/fate.src
	fate_inject "$2" 1 || return 1
	afs-pwrite "$f" 0 /tmp/fate.src
	rc=$?
	fate_clear
	echo "with the store failing: afs-pwrite exit $rc (3: fsync failed)"
	fate_inject 30 -1 || return 1
	umount "$FATE/$1"
	fate_clear
	afs-mount "%$CELL:fate$1" "$FATE/$1" || return 1
	cmp /tmp/fate.src "$f"
	same=$?
	umount "$FATE/$1"
	[ $rc -eq 3 ] && [ $same -eq 0 ]
}

# A store that fails again and again with an error that may never pass (an
# unknown abort: EREMOTEIO) keeps its data for ten failures in a row over
# at least 60 s, then drops it with one log line that names the file, the
# range and the reason; the fsync() after that finds nothing left to store.
# An afs-pwrite every 2 s, two stores each (its fsync(), and its close(),
# which afs_release() fsyncs too): the count is reached in seconds, the
# time is what lets the data go.
fate_bounded() {
	fate_mount bound || return 1
	f=$FATE/bound/f
	head -c 8192 /dev/urandom > /tmp/fate.src
	lines=$(dmesg | wc -l)
	fate_inject 121 -1 || return 1
	t0=$(uptime_s)
	afs-pwrite "$f" 0 /tmp/fate.src > /tmp/fate.out
	failed=0
	while ! grep -q 'fsync: ok' /tmp/fate.out && [ $failed -lt 60 ]; do
		failed=$((failed + 1))
		sleep 2
		afs-pwrite "$f" 0 /dev/null > /tmp/fate.out
	done
	t=$(($(uptime_s) - t0))
	fate_clear
	dmesg | tail -n "+$((lines + 1))" | grep 'kAFS: Data of' > /tmp/fate.log
	cat /tmp/fate.log
	echo "fsync failed $failed times in $t s, then: $(cat /tmp/fate.out)"
	umount "$FATE/bound"
	[ $t -ge 60 ] && [ $t -le 80 ] && grep -q 'fsync: ok' /tmp/fate.out &&
		[ "$(wc -l < /tmp/fate.log)" -eq 1 ] &&
		grep -q 'at 0+2000 dropped: stores failed too long (-121)' /tmp/fate.log
}

# Evidence still drops data: a store refused as read-only (VREADONLY) fails
# fsync() with EROFS and the data is dropped at once, with its log line.
fate_readonly() {
	fate_mount ro || return 1
	f=$FATE/ro/f
	head -c 4096 /dev/urandom > /tmp/fate.src
	lines=$(dmesg | wc -l)
	fate_inject 30 1 || return 1
	afs-pwrite "$f" 0 /tmp/fate.src > /tmp/fate.out
	fate_clear
	afs-pwrite "$f" 0 /dev/null >> /tmp/fate.out
	cat /tmp/fate.out
	dmesg | tail -n "+$((lines + 1))" | grep 'kAFS: Data of' > /tmp/fate.log
	cat /tmp/fate.log
	umount "$FATE/ro"
	grep -q 'fsync: Read-only file system' /tmp/fate.out &&
		[ "$(grep -c 'fsync: ok' /tmp/fate.out)" -eq 1 ] &&
		grep -q 'dropped: volume read-only (-30)' /tmp/fate.log
}

check "storefate: syncfs() after a store interrupted (errno 512) returns 0" fate_syncfs
check "storefate: a store failing ENOENT (file not known deleted) keeps the data" \
	fate_kept noent 2
check "storefate: a store failing ENOMEDIUM (volume not known gone) keeps the data" \
	fate_kept nomedium 123
check "storefate: a store failing ENXIO (VMOVED, the VLDB not caught up) keeps the data" \
	fate_kept nxio 6
check "storefate: EREMOTEIO every time: dropped after 10 stores and 60 s, one log line" \
	fate_bounded
check "storefate: EROFS drops the data at once, with its log line" fate_readonly
fate_clear 2> /dev/null
