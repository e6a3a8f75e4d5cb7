# SPDX-License-Identifier: GPL-2.0
#
# kmemleak, on the debug kernel (AFS_E2E_KERNEL=debug) only.

# leaks_of_ours: kmemleak finds no object that nothing points to with a
# kAFS or rxrpc function in its allocation's backtrace.  kmemleak passes
# over an object that changed since the previous scan, so scan twice.
# Whole reports go to the console (the TAP keeps 20 lines).
leaks_of_ours() {
	K=/sys/kernel/debug/kmemleak
	echo scan > $K && sleep 6 && echo scan > $K || return 1
	cat $K > /tmp/leaks
	echo "kmemleak: $(grep -c '^unreferenced object' /tmp/leaks) unreferenced objects in all"
	awk '/^unreferenced object/ { if (ours) print o; o = ""; ours = 0 }
	     /\] (afs|yfs|rxrpc|rxkad)_/ { ours = 1 }
	     { o = o $0 "\n" }
	     END { if (ours) print o }' /tmp/leaks > /tmp/leaks-ours
	[ -s /tmp/leaks-ours ] || return 0
	cat /tmp/leaks-ours > /dev/console
	head -n 18 /tmp/leaks-ours
	return 1
}

# have_kmemleak: debugfs mounted, and the kernel has kmemleak.
have_kmemleak() {
	mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
	[ -e /sys/kernel/debug/kmemleak ]
}
