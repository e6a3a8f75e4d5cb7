#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, idempotently, the Debian packages the project needs.  Never with
# recommends: some recommend DKMS modules that must not be built for the
# machine's own kernel.  Extra packages may be named on the command line.

set -euo pipefail

pkgs=(linux-source-6.1 qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu
      qemu-system-sparc gcc-sparc64-linux-gnu
      gcc make flex bison bc libelf-dev libssl-dev python3 rsync xz-utils
      git perl ccache "$@")

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# An apt-get that was interrupted leaves dpkg asking for this first.
$sudo dpkg --configure -a
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
