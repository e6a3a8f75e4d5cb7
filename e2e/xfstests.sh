# SPDX-License-Identifier: GPL-2.0
#
# The xfstests guest, sourced by /init with e2e=xfstests once the cell is up:
# runs upstream fstests' ./check -afs over the run's list, from the host's
# root (read-only over 9p, tag "hostroot") in a chroot whose writable places
# are tmpfs.  One ./check for the whole list: its start-up costs about 30 s
# under TCG.  A watchdog kills a test that runs too long.  What ./check
# leaves (its xunit report, check.log, and a failed test's .out.bad, .full
# and .dmesg) is copied to the host over 9p (tag "results"), where
# scripts/xfstests-judge.py turns it into TAP.
#
# Kernel command line:
#	xfstests.tree=DIR	the built fstests tree on the host
#	xfstests.list=FILE	the run's tests on the host, one a line
#	xfstests.timeout=S	seconds one test may take (default 300)

XT_ROOT=/host
XT_TREE=$(arg xfstests.tree)
XT_LIST=$(arg xfstests.list)
XT_TIMEOUT=$(arg xfstests.timeout)
XT_TIMEOUT=${XT_TIMEOUT:-300}
XT_OUT=$XT_ROOT/mnt/results
XT_RESULTS=$XT_ROOT/tmp/xfstests-results

# The chroot's environment: the unpacked XFS tools first on PATH, and their
# libraries found.
XT_SYSROOT=$XT_TREE/../sysroot
XT_ENV="HOME=/root TERM=dumb
PATH=$XT_SYSROOT/usr/sbin:/usr/sbin:/usr/bin:/sbin:/bin
LD_LIBRARY_PATH=$XT_SYSROOT/lib/x86_64-linux-gnu"

# xt_chroot_setup: the host's root with tmpfs where fstests and mount write,
# and the results share.
xt_chroot_setup() {
	mkdir -p $XT_ROOT
	# cache=loose: the host's root does not change during the run, and
	# without a page cache every exec and read goes to the host.
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro \
		hostroot $XT_ROOT || return 1
	mount -t proc proc $XT_ROOT/proc &&
	mount -t sysfs sysfs $XT_ROOT/sys &&
	mount -o bind /dev $XT_ROOT/dev || return 1
	for d in tmp var/tmp run root mnt; do
		mount -t tmpfs tmpfs $XT_ROOT/$d || return 1
	done
	mkdir -p $XT_ROOT/mnt/test $XT_ROOT/mnt/scratch $XT_OUT
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 \
		results $XT_OUT || return 1
	# A writable copy: ./check links each test's expected output into
	# the tree.
	cp -a $XT_ROOT$XT_TREE $XT_ROOT/tmp/xfstests || return 1
	cat > $XT_ROOT/tmp/xfstests/local.config <<-EOC
	export FSTYP=afs
	export TEST_DEV=%$CELL:xft.test
	export TEST_DIR=/mnt/test
	export SCRATCH_DEV=%$CELL:xft.scratch
	export SCRATCH_MNT=/mnt/scratch
	export RESULT_BASE=${XT_RESULTS#$XT_ROOT}
	EOC
}

# xt_kill_tree <pid>: a process and its descendants.
xt_kill_tree() {
	for c in $(ps -o pid,ppid | awk -v p=$1 '$2 == p { print $1 }'); do
		xt_kill_tree $c
	done
	kill -9 $1 2>/dev/null
}

# xt_watchdog: kill a test (bash running tests/<dir>/<n>) that has run
# XT_TIMEOUT seconds, and note its name on the results share.
xt_watchdog() {
	last= since=
	while sleep 5; do
		# busybox ps: "PID [{comm}] /bin/bash <tree>/tests/<dir>/<n>"
		set -- $(ps -o pid,args | awk '/bash/ {
			for (i = 2; i <= NF; i++)
				if ($i ~ /(^|\/)tests\/[a-z]+\/[0-9]+$/) {
					t = $i; sub(/.*tests\//, "", t)
					print $1, t; exit
				} }')
		if [ "$1" != "$last" ]; then
			last=$1 since=$(uptime_s)
			continue
		fi
		[ -n "$1" ] && [ $(($(uptime_s) - since)) -ge $XT_TIMEOUT ] ||
			continue
		echo "$2" >> $XT_OUT/timed-out
		say "xfstests: $2 ran for $XT_TIMEOUT s: killed"
		xt_kill_tree $1
	done
}

xt_chroot_setup || bail "the xfstests chroot could not be set up"
volume_create xft.test && volume_create xft.scratch || bail "no xfstests volumes"
tap "# xfstests: $(grep -c . $XT_ROOT$XT_LIST) tests, $XT_TIMEOUT s each at most"
xt_watchdog &
watchdog=$!
t0=$(uptime_s)
chroot $XT_ROOT /usr/bin/env -i $XT_ENV /bin/bash -c \
	"cd /tmp/xfstests && exec ./check -afs -R xunit-quiet $(tr '\n' ' ' < $XT_ROOT$XT_LIST)" \
	> $XT_OUT/check.out 2>&1
tap "# ./check exited with $? after $(($(uptime_s) - t0)) s"
kill $watchdog
cp $XT_RESULTS/result.xml $XT_RESULTS/check.log $XT_OUT/ 2>/dev/null
for t in $(sed -n 's/^Failures: //p' $XT_RESULTS/check.log | tail -n 1); do
	mkdir -p $XT_OUT/$(dirname $t)
	for f in $XT_RESULTS/$t.out.bad $XT_RESULTS/$t.full $XT_RESULTS/$t.dmesg; do
		[ -f $f ] && cp $f $XT_OUT/$(dirname $t)/
	done
done
