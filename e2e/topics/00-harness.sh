# SPDX-License-Identifier: GPL-2.0
#
# The harness every other topic relies on (e2e/lib/tap.sh), checked where
# it runs: a check that hangs is killed at its limit with every process it
# started, so that none runs on into the checks after it.

# A check that starts workers, two of them grandchildren and one orphaned
# to /init at once, and hangs.
harness_hang() {
	sleep 1001 &
	(sleep 1002 & wait) &
	sh -c 'sleep 1003 & wait' &
	(sleep 1004 &)
	sleep 1
	running 'sleep 100[1-4]$' | wc -l > /tmp/harness.workers
	wait
}

harness_killed_check() {
	level=$(cut -f1 /proc/sys/kernel/printk)
	(
		TAP=/dev/null CHECK_TIMEOUT=3 CHECK_OUT=/tmp/harness.out
		run_check "" "a check that hangs" harness_hang
	) > /dev/null
	echo "$level" > /proc/sys/kernel/printk
	echo "workers while it ran: $(cat /tmp/harness.workers)"
	[ "$(cat /tmp/harness.workers)" = 4 ] || return 1
	grep -q 'killed after 3 s' /tmp/harness.out || { echo "not killed"; return 1; }
	sleep 1
	! running 'sleep 100[1-4]$' || { echo "^ left running"; return 1; }
}

check "a check killed at its limit leaves none of its workers running" \
	harness_killed_check
