#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build stock 6.1 kAFS: the pristine tree's kernel, with the x86_64 run's
# configuration less our suites, in $AFS_BUILD_DIR/kunit-stock (a git work
# tree of the pristine commit in $AFS_BUILD_DIR/stock-linux).  Prints the
# bzImage's path.  Used by the benchmark and by AFS_E2E_KERNEL=stock.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
results=${AFS_RESULTS_DIR:-$repo/results}
mkdir -p "$results"

tree=$("$repo/overlay.sh" | tail -n 1)

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
echo "stock: building the stock kernel in $build/kunit-stock" >&2
"$stock/tools/testing/kunit/kunit.py" build --arch=x86_64 \
	--build_dir="$build/kunit-stock" --jobs="$(nproc)" "${make_options[@]}" \
	--kunitconfig="$build/stock.kunitconfig" \
	--kunitconfig="$repo/kconfig/x86_64.config" \
	--kunitconfig="$repo/kconfig/boot.config" > "$results/stock.build" 2>&1 < /dev/null ||
	{ tail -n 20 "$results/stock.build" >&2; exit 1; }
echo "$build/kunit-stock/arch/x86/boot/bzImage"
