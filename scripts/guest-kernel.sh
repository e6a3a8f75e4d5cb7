#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or find up to date) the kernel a guest boots, and print its
# bzImage's path: the E2E run's and the xfstests run's choice.
#
#	scripts/guest-kernel.sh ours|debug|stock
#
# ours:  the x86_64 KUnit build with kconfig/boot.config, the same build
#        directory and fragments as "make test-x86_64" (a no-op if that
#        run already built it)
# debug: the same with the debug and leak-check fragments
# stock: stock 6.1 kAFS, the bench's pristine build (scripts/build-stock.sh)
#
# The caller holds the heavy lock (scripts/lib-lock.sh).  Build output goes
# to stderr.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}

case ${1:-} in
ours)
	AFS_KUNIT_BUILD_ONLY=1 "$repo/scripts/kunit-run.sh" x86_64 x86_64 \
		kconfig/boot.config >&2
	echo "$build/kunit-x86_64/arch/x86/boot/bzImage"
	;;
debug)
	AFS_KUNIT_BUILD_ONLY=1 "$repo/scripts/kunit-run.sh" e2e-debug x86_64 \
		kconfig/debug.config kconfig/leak.config kconfig/boot.config >&2
	echo "$build/kunit-e2e-debug/arch/x86/boot/bzImage"
	;;
stock)
	"$repo/scripts/build-stock.sh"
	;;
*)
	echo "guest-kernel.sh: \"${1:-}\": ours, debug or stock" >&2
	exit 2
	;;
esac
