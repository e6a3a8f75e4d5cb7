#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print one line per run and a total, and fail if any run failed.
#
#	scripts/summary.sh <run name>...
#
# Each run leaves results/<run name>.summary: "<name>: P passed, F failed..."
# (a KUnit run says what P is made of: "P passed (R ... rows, C cases), F
# failed..."), or, if it could not count, a line saying why (counted as one
# failure).  A run's benchmark figures (results/<run name>.bench) are printed
# after the lines and counted in nothing; the lines of the runs that failed
# come again after the total.

set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results=${AFS_RESULTS_DIR:-$repo/results}
passed=0 failed=0 skipped=0 rc=0
failing=()

for run in "$@"; do
	line=$(cat "$results/$run.summary" 2>/dev/null || echo "$run: no result")
	echo "$line"
	if [[ $line =~ :\ ([0-9]+)\ passed(\ \([^\)]*\))?,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[3]))
		skipped=$((skipped + ${BASH_REMATCH[5]:-0}))
		# A run passes with no failure and something passed, or, for a
		# run that cannot run here (xfstests without its tarball),
		# everything skipped.
		[ "${BASH_REMATCH[3]}" -eq 0 ] &&
			{ [ "${BASH_REMATCH[1]}" -gt 0 ] || [ "${BASH_REMATCH[5]:-0}" -gt 0 ]; } ||
			{ rc=1; failing+=("$line"); }
	else
		failed=$((failed + 1))
		rc=1
		failing+=("$line")
	fi
done

for run in "$@"; do
	[ -s "$results/$run.bench" ] && cat "$results/$run.bench"
done
echo "total: $passed passed, $failed failed, $skipped skipped"
# Again at the end, where a log cut short in the middle still shows them.
for line in "${failing[@]}"; do
	echo "failed: $line"
done
exit $rc
