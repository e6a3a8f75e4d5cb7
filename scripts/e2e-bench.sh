#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark stock 6.1 kAFS against ours: the pristine tree's kernel and the
# overlaid one, built with the same configuration, each booted with the same
# guest and cell, running e2e/helpers/afs-bench.c AFS_BENCH_RUNS times each
# (default 3).  Prints each metric's median and range per kernel and the
# ratio of the medians; asserts nothing (TCG timings are figures for
# comparison, not targets).

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
results=${AFS_RESULTS_DIR:-$repo/results}
mkdir -p "$results"

. "$repo/scripts/lib-lock.sh"
heavy_lock
# Stock: the pristine tree's kernel with our configuration less our suites.
"$repo/scripts/build-stock.sh" > /dev/null

# Ours: the x86_64 run's kernel.
AFS_KUNIT_BUILD_ONLY=1 "$repo/scripts/kunit-run.sh" x86_64 x86_64 kconfig/boot.config >&2

runs=${AFS_BENCH_RUNS:-3}
# Interleaved (stock, ours, stock, ours, ...) so that a slow spell of the
# host falls on both kernels rather than on one.
for i in $(seq 1 "$runs"); do
	for which in stock ours; do
		case $which in
		stock)	kernel=$build/kunit-stock/arch/x86/boot/bzImage ;;
		ours)	kernel=$build/kunit-x86_64/arch/x86/boot/bzImage ;;
		esac
		echo "bench: run $i of $runs on $which kAFS" >&2
		log=$results/bench-$which-$i
		"$repo/scripts/e2e-boot.sh" "$kernel" bench "$log.log" "$log.tap"
		tr -d '\r' < "$log.tap" | grep '^bench: ' |
			grep -v 'bench: done' > "$log.txt" ||
			{ echo "bench: no figures from $which; see $log.log" >&2; exit 1; }
	done
done

python3 "$repo/scripts/bench-summary.py" "$results" "$runs" |
	tee "$results/bench.txt"
