# SPDX-License-Identifier: GPL-2.0
#
# Writes: data that is never lost.  Large files, streamed writes, and the
# server's own view of what it stored.

check "mount %$CELL:e2e for the write checks" afs-mount %$CELL:e2e $AFS
writes_before_kb=$(volume_kb e2e)
check "64 MiB written, read back after dropping caches, same checksum" sh -c "
	dd if=/dev/urandom of=/tmp/src bs=1M count=64 2>/dev/null &&
	md5sum < /tmp/src > /tmp/big.md5 && dd if=/tmp/src of=$AFS/big bs=1M 2>/dev/null &&
	echo 3 > /proc/sys/vm/drop_caches && md5sum < $AFS/big | cmp - /tmp/big.md5"

# writes_pipe <name>: the source streamed through a pipe in small writes;
# on a difference, say how many bytes and in which pages.
writes_pipe() {
	cat /tmp/src | tee $AFS/$1 > /dev/null &&
	echo 3 > /proc/sys/vm/drop_caches
	cmp -l /tmp/src $AFS/$1 > /tmp/diffs
	echo "$(wc -l < /tmp/diffs) bytes differ, in these pages:"
	awk '{ print int(($1 - 1) / 4096) }' /tmp/diffs | uniq -c | head -n 5
	rm -f $AFS/$1
	[ ! -s /tmp/diffs ]
}
todo "64 MiB streamed through a pipe in small writes, read back intact" \
	"intermittent: half a page read back as zeros, seen twice, cause not found" \
	writes_pipe streamed

writes_grew() {
	after_kb=$(volume_kb e2e)
	echo "$writes_before_kb K before, $after_kb K after"
	[ -n "$writes_before_kb" ] && [ -n "$after_kb" ] &&
		[ "$after_kb" -ge $((writes_before_kb + 60000)) ]
}
check "the server's view: vos examine shows the volume grew" writes_grew
check "umount after the write checks" umount $AFS
rm -f /tmp/src
