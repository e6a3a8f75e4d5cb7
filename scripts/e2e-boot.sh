#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel with the E2E initramfs in QEMU (TCG, no network device: the
# OpenAFS cell lives on the guest's own loopback).
#
#	scripts/e2e-boot.sh <kernel> check|bench|xfstests <console log> <tap file>
#	scripts/e2e-boot.sh <kernel> shell
#
# AFS_E2E_TOPICS=a,b runs only those topics (e2e/topics/*-<topic>.sh, or
# else e2e/long/*-<topic>.sh).
# AFS_E2E_APPEND adds to the kernel command line, AFS_E2E_QEMU_ARGS to
# QEMU's (split on white space).
# Exits with QEMU's status, 124 on a timeout (AFS_E2E_TIMEOUT, 2400 s).

set -euo pipefail

kernel=$1 mode=$2
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
initrd=$("$repo/scripts/e2e-initramfs.sh")
. "$repo/scripts/lib-lock.sh"
heavy_lock

append="console=ttyS0 loglevel=5 panic=-1 kunit.enable=0 rdinit=/init"
append+=" kafs.rootcell=test.example:127.1.0.1 e2e=$mode"
[ -z "${AFS_E2E_TOPICS:-}" ] || append+=" e2e.topics=$AFS_E2E_TOPICS"
[ -z "${AFS_E2E_APPEND:-}" ] || append+=" $AFS_E2E_APPEND"
qemu=(qemu-system-x86_64 -nodefaults -no-reboot -nographic -nic none
      -m 2048 -smp 2 -bios qboot.rom -kernel "$kernel" -initrd "$initrd"
      -append "$append")
# shellcheck disable=SC2206 # split on white space, as documented
[ -z "${AFS_E2E_QEMU_ARGS:-}" ] || qemu+=($AFS_E2E_QEMU_ARGS)

if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -serial stdio -serial null
fi

exec timeout "${AFS_E2E_TIMEOUT:-2400}" "${qemu[@]}" \
	-serial "file:$3" -serial "file:$4" < /dev/null
