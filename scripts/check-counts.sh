#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fail if make test ran less than the repository holds, however green each
# run was: a KUnit suite that dropped out of the build, a table that lost
# rows, an E2E topic that did not run, a variable that narrowed a run.
#
#	scripts/check-counts.sh <run name>...
#
# - Every suite defined in kunit/*.c must be in each KUnit run's results.
# - Every topic in e2e/topics/ must be in the E2E run's TAP.
# - Each run's passes must reach its least count in expected-counts (raise
#   it with the tests; lower it only with a reason in the commit).
# - AFS_E2E_TOPICS and AFS_XFSTESTS_TESTS must not be set: they are for
#   one run at a time.  AFS_ALLOW_NO_FSTESTS=1 lets the xfstests run count
#   nothing, as it asks.

set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results=${AFS_RESULTS_DIR:-$repo/results}
rc=0

bad() {
	echo "counts: $*"
	rc=1
}

for v in AFS_E2E_TOPICS AFS_XFSTESTS_TESTS; do
	[ -z "${!v:-}" ] || bad "$v is set ('${!v}'): make test runs everything"
done

suites=$(sed -n 's/^\t\.name = "\(afs_[a-z0-9_]*\)",$/\1/p' "$repo"/kunit/*.c | sort)
topics=$(ls "$repo"/e2e/topics/ | sed -n 's/^[0-9]*-\(.*\)\.sh$/\1/p' | sort)

for run in "$@"; do
	summary=$(cat "$results/$run.summary" 2>/dev/null)
	case $run in
	kunit-*)
		ran=$(python3 -c '
import json, sys
print("\n".join(sorted(g["name"] for g in json.load(open(sys.argv[1])).get("sub_groups", []))))
' "$results/$run.json" 2>/dev/null)
		for s in $suites; do
			grep -qx "$s" <<< "$ran" || bad "$run: suite $s did not run"
		done
		;;
	e2e)
		ran=$(sed -n 's/^# topic \([a-z0-9_-]*\)$/\1/p' "$results/e2e.tap" 2>/dev/null | sort)
		for t in $topics; do
			grep -qx "$t" <<< "$ran" || bad "e2e: topic $t did not run"
		done
		;;
	esac
	least=$(awk -v r="$run" '!/^#/ && $1 == r { print $2 }' "$repo/expected-counts")
	[ -n "$least" ] || { bad "$run: no least count in expected-counts"; continue; }
	[ "$run" = xfstests ] && [ "${AFS_ALLOW_NO_FSTESTS:-0}" = 1 ] && continue
	passed=$(sed -n 's/^[^:]*: \([0-9]*\) passed.*/\1/p' <<< "$summary")
	[ "${passed:-0}" -ge "$least" ] ||
		bad "$run: ${passed:-0} passed, fewer than the $least in expected-counts"
done

[ $rc -eq 0 ] && echo "counts: every suite and topic ran, every run reached its count"
exit $rc
