# SPDX-License-Identifier: GPL-2.0
#
# Rotation: a second fileserver, a volume with RO sites on both, and the
# ways real servers misbehave (busy, offline, stopped, moved, removed, all
# down, loaded), each check bounded and timed.  After each, a TAP comment
# says what kAFS's rotation logged meanwhile (operation, error, abort code,
# action), which is how docs/rotation.md reports what was seen.

. /e2e/lib/rotation.sh

# rotation_check <description> <function> [<TODO reason>]: the function in
# a shell of its own (run_check's time limit needs a command), then, as TAP
# comments, what it measured and what kAFS logged meanwhile.  With a reason,
# a check of a known defect (reported, not a failure of the run).
rotation_check() {
	lines=$(dmesg | wc -l)
	directive=
	[ -z "${3:-}" ] || directive=" # TODO $3"
	run_check "$directive" "$1" sh -c ". /e2e/lib/tap.sh && . /e2e/lib/cell.sh &&
		. /e2e/lib/stores.sh && . /e2e/lib/rotation.sh && $2"
	{ grep '^measured: ' /tmp/check.out; rot_seen "$lines" | sed 's/^/log: /'; } > /tmp/rot.notes
	tap_diag /tmp/rot.notes 30
}

check "a second fileserver on $FS2" sh -c ". /e2e/lib/tap.sh && . /e2e/lib/cell.sh &&
	cell_add_fileserver $FS2"
rotation_check "volume $ROT_VOL: RW on $ADDR, RO on both, mounted RW and RO" rot_setup
rotation_check "VBUSY for 5 s (vos offline -busy -sleep 5): a write waits, no spin" rot_busy
rotation_check "VOFFLINE on one RO site, each in turn: reads go on from the other" \
	rot_offline_site
rotation_check "bos stop of each fileserver during a 16 MiB RO read: right checksum" \
	rot_bos_stop
rotation_check "a fileserver killed in the middle of a reply: the retry reads right" \
	rot_kill_mid_fetch
rotation_check "vos move of the RW volume under an appending writer: nothing lost" rot_move
rotation_check "vos remove of a mounted volume: a clear error, umount works" rot_remove
if command -v fsstress > /dev/null; then
	# 8,000 operations took 236 to 294 s under TCG: a limit of its own,
	# twice that, rather than the 300 s every other check gets.
	CHECK_TIMEOUT=600
	rotation_check "fsstress loading the fileserver: no StoreData error" rot_load
	CHECK_TIMEOUT=300
else
	skip "fsstress loading the fileserver: no StoreData error" "no fsstress in the guest"
fi
rotation_check "every fileserver stopped: a clear error in bounded time, then back" \
	rot_all_down
umount $ROT_RW $ROT_RO 2> /dev/null
