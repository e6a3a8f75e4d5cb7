# SPDX-License-Identifier: GPL-2.0
#
# The xfstests guest, sourced by /init with e2e=xfstests once the cell is up:
# runs upstream fstests' ./check -afs over the run's list, from the host's
# root (read-only over 9p, tag "hostroot") in a chroot whose writable places
# are tmpfs.  One ./check for the whole list: its start-up costs about 30 s
# under TCG.  No xunit report (-R): ./check rewrites the whole of it before
# each test, which under TCG costs about 4 s a test.  A watchdog kills a
# test that runs too long.  ./check's output goes to the host over 9p (tag
# "results") as it runs, and check.log and a failed test's .out.bad, .full,
# .dmesg and golden .out follow at the end; scripts/xfstests-judge.py turns them into
# TAP.
#
# Kernel command line:
#	xfstests.tree=DIR	the built fstests tree on the host
#	xfstests.list=FILE	the run's tests on the host, one a line
#	xfstests.timeout=S	seconds one test may take (default 120)

XT_ROOT=/host
XT_TREE=$(arg xfstests.tree)
XT_LIST=$(arg xfstests.list)
XT_TIMEOUT=$(arg xfstests.timeout)
XT_TIMEOUT=${XT_TIMEOUT:-120}
XT_OUT=$XT_ROOT/mnt/results
XT_RESULTS=$XT_ROOT/tmp/xfstests-results

# The chroot's environment: the unpacked XFS tools (the tree's sibling
# "sysroot", copied to /tmp/xfstests-sysroot) first on PATH, and their
# libraries found.
XT_ENV="HOME=/root TERM=dumb
PATH=/tmp/xfstests-sysroot/usr/sbin:/usr/sbin:/usr/bin:/sbin:/bin
LD_LIBRARY_PATH=/tmp/xfstests-sysroot/lib/x86_64-linux-gnu"

# xt_chroot_setup: the host's root with tmpfs where fstests and mount write,
# and the results share.  The tree, its sysroot and the list are copied out
# first: they may live under a directory the tmpfs hide (a clone in /tmp).
xt_chroot_setup() {
	mkdir -p $XT_ROOT /xt
	# cache=loose: the host's root does not change during the run, and
	# without a page cache every exec and read goes to the host.
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro \
		hostroot $XT_ROOT || return 1
	# A writable copy: ./check links each test's expected output into
	# the tree.
	mount -t tmpfs tmpfs /xt &&
	cp -a $XT_ROOT$XT_TREE /xt/xfstests &&
	cp -a $XT_ROOT$XT_TREE/../sysroot /xt/xfstests-sysroot &&
	grep . $XT_ROOT$XT_LIST > /xt/list || return 1
	mount -t proc proc $XT_ROOT/proc &&
	mount -t sysfs sysfs $XT_ROOT/sys &&
	mount -o bind /dev $XT_ROOT/dev || return 1
	for d in tmp var/tmp run root mnt; do
		mount -t tmpfs tmpfs $XT_ROOT/$d || return 1
	done
	mkdir -p $XT_ROOT/mnt/test $XT_ROOT/mnt/scratch $XT_OUT \
		$XT_ROOT/tmp/xfstests $XT_ROOT/tmp/xfstests-sysroot
	mount -o bind /xt/xfstests $XT_ROOT/tmp/xfstests &&
	mount -o bind /xt/xfstests-sysroot $XT_ROOT/tmp/xfstests-sysroot &&
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 \
		results $XT_OUT || return 1
	cat > $XT_ROOT/tmp/xfstests/local.config <<-EOC
	export FSTYP=afs
	export TEST_DEV=%$CELL:xft.test
	export TEST_DIR=/mnt/test
	export SCRATCH_DEV=%$CELL:xft.scratch
	export SCRATCH_MNT=/mnt/scratch
	export RESULT_BASE=${XT_RESULTS#$XT_ROOT}
	EOC
}

# xt_current_test: "<pid> <dir>/<n>" of the test ./check runs now: the
# child of ./check that runs tests/<dir>/<n> (its subshells show the same
# command line, but their parent is the test).  ps shows ./check by the
# path bash gives it, /tmp/xfstests/check.
xt_current_test() {
	ps -o pid,ppid,args | awk '
		/[ \/]check -afs / && !/awk/ { check[$1] = 1 }
		{ pid[NR] = $1; ppid[NR] = $2; line[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				if (!(ppid[i] in check))
					continue
				n = split(line[i], f, " ")
				for (j = 3; j <= n; j++)
					if (f[j] ~ /(^|\/)tests\/[a-z]+\/[0-9]+$/) {
						t = f[j]; sub(/.*tests\//, "", t)
						print pid[i], t; exit
					}
			}
		}'
}

# xt_watchdog: kill a test that has run XT_TIMEOUT seconds, and note its
# name on the results share.
xt_watchdog() {
	last= since=
	while sleep 5; do
		set -- $(xt_current_test)
		if [ "$1 $2" != "$last" ]; then
			last="$1 $2" since=$(uptime_s)
			continue
		fi
		[ -n "$1" ] && [ $(($(uptime_s) - since)) -ge $XT_TIMEOUT ] ||
			continue
		echo "$2" >> $XT_OUT/timed-out
		say "xfstests: $2 ran for $XT_TIMEOUT s: killed"
		kill_tree - $1
	done
}

xt_chroot_setup || bail "the xfstests chroot could not be set up"
volume_create xft.test && volume_create xft.scratch || bail "no xfstests volumes"
tap "# xfstests: $(grep -c . /xt/list) tests, $XT_TIMEOUT s each at most"
xt_watchdog &
watchdog=$!
t0=$(uptime_s)
chroot $XT_ROOT /usr/bin/env -i $XT_ENV /bin/bash -c \
	"cd /tmp/xfstests && exec ./check -afs $(tr '\n' ' ' < /xt/list)" \
	> $XT_OUT/check.out 2>&1
rc=$?
tap "# ./check exited with $rc after $(($(uptime_s) - t0)) s"
kill $watchdog
cp $XT_RESULTS/check.log $XT_OUT/ 2>/dev/null
for t in $(sed -n 's/^Failures: //p' $XT_RESULTS/check.log | tail -n 1); do
	mkdir -p $XT_OUT/$(dirname $t)
	for f in $XT_RESULTS/$t.out.bad $XT_RESULTS/$t.full $XT_RESULTS/$t.dmesg; do
		[ -f $f ] && cp $f $XT_OUT/$(dirname $t)/
	done
	# The golden output ./check compared with (a variant's link, resolved).
	cp -L /xt/xfstests/tests/$t.out $XT_OUT/$t.out 2>/dev/null
done
