# SPDX-License-Identifier: GPL-2.0
#
# The harness every other topic relies on (e2e/lib/tap.sh), checked where
# it runs: a check that hangs is killed at its limit with every process it
# started, so that none runs on into the checks after it, and with nothing
# that was running before it.

# A check that starts workers (two of them grandchildren, one orphaned to
# /init at once, and one more orphaned every half second) and hangs.
harness_hang() {
	sleep 1001 &
	(sleep 1002 & wait) &
	sh -c 'sleep 1003 & wait' &
	(sleep 1004 &)
	(while :; do (sleep 1006 &); sleep 0.5; done) &
	sleep 1
	running 'sleep 100[1-4]$' | wc -l > /tmp/harness.workers
	wait
}

# It runs as every check runs, from /init, so that its watchdog is a child
# of /init as the topics' daemons are; its TAP line goes nowhere.
sleep 1005 &
harness_older=$!
harness_level=$(cut -f1 /proc/sys/kernel/printk)
harness_saved="$TAP $CHECK_TIMEOUT $CHECK_OUT $N"
TAP=/dev/null CHECK_TIMEOUT=3 CHECK_OUT=/tmp/harness.out
run_check "" "a check that hangs" harness_hang > /dev/null
read -r TAP CHECK_TIMEOUT CHECK_OUT N <<EOF
$harness_saved
EOF
echo "$harness_level" > /proc/sys/kernel/printk

harness_killed_check() {
	echo "workers while it ran: $(cat /tmp/harness.workers)"
	[ "$(cat /tmp/harness.workers)" = 4 ] || return 1
	grep -q 'killed after 3 s' /tmp/harness.out || { echo "not killed"; return 1; }
	sleep 1
	! running 'sleep 100[1-46]$' || { echo "^ left running"; return 1; }
	# Killed, it would be a zombie of /init's until /init waits.
	[ "$(awk '{ print $3 }' /proc/$harness_older/stat 2>/dev/null)" = S ] ||
		{ echo "a process started before the check was killed"; return 1; }
}

check "a check killed at its limit leaves none of its workers running, and no older process killed" \
	harness_killed_check
kill $harness_older
