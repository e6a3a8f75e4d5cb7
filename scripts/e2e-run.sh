#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the x86_64 kernel (the KUnit one: kconfig/boot.config makes it
# bootable) with the E2E initramfs in QEMU, against a real OpenAFS cell on
# the guest's loopback, and judge the TAP the guest prints.
#
#	scripts/e2e-run.sh		run the checks
#	scripts/e2e-run.sh shell	a shell in the guest, cell up, AFS mounted
#
# AFS_E2E_KERNEL=stock boots stock 6.1 kAFS instead (scripts/build-stock.sh),
# and writes results/e2e-stock.* rather than results/e2e.*.
# AFS_E2E_KERNEL=debug boots ours with the checkers of "make test-debug"
# (KASAN, lockdep, object debugging...) and kmemleak, built in
# build/kunit-e2e-debug, and writes results/e2e-debug.*.
# AFS_E2E_NAME=<name> writes results/<name>.* instead.  Lines "# figure:
# ..." of the TAP, a topic's measured figures, go to results/<name>.bench.
#
# Writes results/e2e.tap and results/e2e.log (the whole console).  Fails on
# any "not ok", a bail-out, a missing or short plan, a kernel warning or oops
# on the console, or a timeout; on the debug kernel, also if the kmemleak
# check did not run.

set -euo pipefail

mode=${1:-check}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results=${AFS_RESULTS_DIR:-$repo/results}
mkdir -p "$results"
which=${AFS_E2E_KERNEL:-ours}
name=e2e
[ "$which" = ours ] || name=e2e-$which
name=${AFS_E2E_NAME:-$name}
tap=$results/$name.tap log=$results/$name.log summary=$results/$name.summary
bench=$results/$name.bench
rm -f "$tap" "$log" "$summary" "$bench"

fail() {
	echo "$name: $*" | tee "$summary" >&2
	exit 1
}

# One hold of the machine for the (re)build and the guest.
. "$repo/scripts/lib-lock.sh"
heavy_lock

kernel=$("$repo/scripts/guest-kernel.sh" "$which") ||
	fail "AFS_E2E_KERNEL=$which: the kernel did not build (ours, debug or stock)"

if [ "$mode" = shell ]; then
	exec "$repo/scripts/e2e-boot.sh" "$kernel" shell
fi

echo "$name: booting $kernel with the OpenAFS cell"
start=$(date +%s)
rc=0
"$repo/scripts/e2e-boot.sh" "$kernel" check "$log" "$tap" || rc=$?
echo "$name: guest ran for $(( $(date +%s) - start )) s"
[ "$rc" -ne 124 ] || fail "timed out; see $log"
[ "$rc" -eq 0 ] || fail "QEMU exited with $rc; see $log"

# The TAP, the verdict.
tr -d '\r' < "$tap" > "$tap.tmp" && mv "$tap.tmp" "$tap"
grep -E '^(not )?ok |^# |^Bail out' "$tap" | grep -vE '^ok ' || true
# Figures a topic measured ("# figure: ..."): printed by scripts/summary.sh
# after the counts, counted in nothing.
sed -n "s/^# figure: /$name: /p" "$tap" > "$bench"
[ -s "$bench" ] || rm -f "$bench"
# A TODO is a check of a known defect, a SKIP one that cannot run here:
# both reported, counted as skipped, neither a failure.
passed=$(grep '^ok ' "$tap" | grep -vEc '# (TODO|SKIP)' || true)
failed=$(grep '^not ok ' "$tap" | grep -vEc '# (TODO|SKIP)' || true)
todo=$(grep -Ec '^(not )?ok .*# (TODO|SKIP)' "$tap" || true)
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | tail -n 1)
line="$name: $passed passed, $failed failed, $todo skipped"
echo "$line" > "$summary"

grep -q '^Bail out!' "$tap" && fail "the guest bailed out ($line); see $log"
[ -n "$plan" ] || fail "no TAP plan: the guest died early ($line); see $log"
[ "$plan" -eq $((passed + failed + todo)) ] ||
	fail "plan of $plan, $((passed + failed + todo)) results; see $log"
[ "$passed" -gt 0 ] || fail "no check passed; see $log"
[ "$which" != debug ] || grep -q 'kmemleak finds' "$tap" ||
	fail "the kmemleak check did not run ($line); see $log"
# One report goes into the summary line, which the end of make
# test's output repeats for a run that failed.
if ! problems=$("$repo/scripts/check-console.sh" "$log"); then
	echo "$problems"
	fail "kernel problems on the console, among them ${problems%%$'\n'*} ($line); see $log"
fi
[ "$failed" -eq 0 ] ||
	fail "$failed checks failed, the first: $(grep '^not ok' "$tap" | grep -vEm1 '# (TODO|SKIP)') ($line); see $tap"
echo "$line"
