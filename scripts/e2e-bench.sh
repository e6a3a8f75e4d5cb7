#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark stock 6.1 kAFS against ours: the pristine tree's kernel and the
# overlaid one, built with the same configuration, each booted with the same
# guest and cell, running e2e/afs-bench.c.  Prints the figures side by side;
# asserts nothing (TCG timings are figures for comparison, not targets).

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

for which in stock ours; do
	case $which in
	stock)	kernel=$build/kunit-stock/arch/x86/boot/bzImage ;;
	ours)	kernel=$build/kunit-x86_64/arch/x86/boot/bzImage ;;
	esac
	echo "bench: running on $which kAFS" >&2
	"$repo/scripts/e2e-boot.sh" "$kernel" bench \
		"$results/bench-$which.log" "$results/bench-$which.tap"
	tr -d '\r' < "$results/bench-$which.tap" | grep '^bench: ' |
		grep -v 'bench: done' > "$results/bench-$which.txt" ||
		{ echo "bench: no figures from $which; see $results/bench-$which.log" >&2; exit 1; }
done

printf '%-10s %14s %14s  %s\n' metric "stock 6.1" ours unit
# Both runs print the same metrics in the same order.
paste -d ' ' <(awk '{ print $2, $3 }' "$results/bench-stock.txt") \
	     <(awk '{ print $2, $3, $4 }' "$results/bench-ours.txt") |
	awk '$1 == $3 { printf "%-10s %14s %14s  %s\n", $1, $2, $4, $5 }'
