#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run upstream fstests' ./check -afs on the tests of xfstests/tests.list in
# the E2E guest with the cell up (e2e/xfstests.sh), and judge them against
# xfstests/expected-failures (scripts/xfstests-judge.py).
#
#	scripts/xfstests-run.sh
#
# AFS_E2E_KERNEL=stock boots stock 6.1 kAFS (scripts/build-stock.sh) and
# writes results/xfstests-stock.* rather than results/xfstests.*; =debug
# the debug kernel of the E2E run (scripts/guest-kernel.sh).
# AFS_XFSTESTS_TESTS="generic/001 generic/002" runs only those tests;
# AFS_XFSTESTS_TIMEOUT is the seconds one test may take (default 120; the
# slowest test of the list, generic/363, took 79 s).
#
# Writes results/<name>.tap (one line per test: ok, or not ok with what
# fstests said; a listed expected failure is a TODO), results/<name>.log
# (the console) and results/<name>/ (./check's output and check.log, and
# a failed test's .out.bad, .full and .dmesg).  Fails on a failure not
# listed, on a listed failure that passed (the list must stay true), on a
# test that did not report, and on kernel problems on the console.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
results=${AFS_RESULTS_DIR:-$repo/results}
which=${AFS_E2E_KERNEL:-ours}
name=xfstests
[ "$which" = ours ] || name=xfstests-$which
tap=$results/$name.tap log=$results/$name.log summary=$results/$name.summary
mkdir -p "$results"
rm -rf "$tap" "$log" "$summary" "${results:?}/$name"
mkdir -p "$results/$name"

fail() {
	echo "$name: $*" | tee "$summary" >&2
	exit 1
}

. "$repo/scripts/lib-lock.sh"
heavy_lock
rc=0
tree=$("$repo/scripts/build-xfstests.sh") || rc=$?
if [ "$rc" -eq 77 ]; then
	. "$repo/scripts/lib-fstests.sh"
	fstests_missing "$name" || fail "no fstests tarball (see scripts/lib-fstests.sh)"
	# Asked for: skipped, and said so, as the E2E run's fsstress checks.
	echo "$name: 0 passed, 0 failed, 1 skipped" > "$summary"
	exit 0
fi
[ "$rc" -eq 0 ] || fail "fstests did not build"

kernel=$("$repo/scripts/guest-kernel.sh" "$which") ||
	fail "AFS_E2E_KERNEL=$which: the kernel did not build (ours, debug or stock)"

# The list as the guest reads it: one test a line.
list=$build/$name.list
if [ -n "${AFS_XFSTESTS_TESTS:-}" ]; then
	tr ' ' '\n' <<< "$AFS_XFSTESTS_TESTS" | grep . > "$list"
else
	sed 's/#.*//' "$repo/xfstests/tests.list" | awk 'NF { print $1 }' > "$list"
fi

echo "$name: booting $kernel, $(wc -l < "$list") tests"
start=$(date +%s)
rc=0
AFS_E2E_APPEND="xfstests.tree=$tree xfstests.list=$list xfstests.timeout=${AFS_XFSTESTS_TIMEOUT:-120}" \
AFS_E2E_QEMU_ARGS="-m 3072
-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
-virtfs local,path=$results/$name,mount_tag=results,security_model=none" \
	"$repo/scripts/e2e-boot.sh" "$kernel" xfstests "$log" "$tap.raw" || rc=$?
echo "$name: guest ran for $(( $(date +%s) - start )) s"
tr -d '\r' < "$tap.raw" | grep -E '^# |^Bail out' || true
rm -f "$tap.raw"

# Judged whatever the guest's end: what it wrote of ./check's output is on
# the host as the tests ran.
judged=0
python3 "$repo/scripts/xfstests-judge.py" "$repo/xfstests/expected-failures" \
	"$list" "$results/$name" > "$tap" || judged=$?
[ "$rc" -ne 124 ] || fail "timed out; see $log and $tap"
[ "$rc" -eq 0 ] || fail "QEMU exited with $rc; see $log and $tap"
rc=$judged
line=$(tail -n 1 "$tap" | sed 's/^# //')
echo "$name: $line" > "$summary"
grep -E '^not ok |^# unexpected' "$tap" || true
[ "$which" != ours ] || [ "$rc" -eq 0 ] || fail "$line; see $tap"
"$repo/scripts/check-console.sh" "$log" || fail "kernel problems on the console ($line); see $log"
echo "$name: $line"
