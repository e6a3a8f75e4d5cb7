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

tree=$("$repo/overlay.sh" | tail -n 1)

# Stock: a work tree of the pristine commit, with our config less our suites.
stock=$build/stock-linux
if [ ! -f "$stock/Makefile" ]; then
	rm -rf "$stock"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q -f --detach "$stock" pristine >&2
fi
. "$repo/scripts/lib-lock.sh"
heavy_lock
make_options=()
if command -v ccache > /dev/null; then
	export CCACHE_BASEDIR=$build
	make_options=(--make_options="CC=ccache gcc")
fi
grep -v AFS_KUNIT_TEST "$repo/.kunitconfig" > "$build/stock.kunitconfig"
echo "bench: building the stock kernel in $build/kunit-stock" >&2
"$stock/tools/testing/kunit/kunit.py" build --arch=x86_64 \
	--build_dir="$build/kunit-stock" --jobs="$(nproc)" "${make_options[@]}" \
	--kunitconfig="$build/stock.kunitconfig" \
	--kunitconfig="$repo/kconfig/x86_64.config" \
	--kunitconfig="$repo/kconfig/boot.config" > "$results/bench-stock.build" 2>&1 < /dev/null ||
	{ tail -n 20 "$results/bench-stock.build" >&2; exit 1; }

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
