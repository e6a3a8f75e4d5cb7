#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build upstream fstests (xfstests), unmodified, from its tarball (found
# as scripts/lib-fstests.sh says), for the xfstests guest
# (scripts/xfstests-run.sh).  The guest runs it from the host's root,
# read-only over 9p, so it is built for this machine.
#
# The XFS packages (xfs_io, libhandle and their headers) are unpacked into
# the build directory, not installed; the build tools and the ACL and AIO
# headers are clean packages, installed like the project's others.  Never
# committed.
#
#	scripts/build-xfstests.sh	prints the tree's path
#
# Exits 77, printing nothing, when there is no tarball (and
# AFS_XFSTESTS_TARBALL is not set).
#
# The tree's "sysroot" directory holds the unpacked XFS packages: the guest
# puts its usr/sbin on PATH and its lib directory on LD_LIBRARY_PATH.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
. "$repo/scripts/lib-fstests.sh"
tarball=$(fstests_tarball)
out=$build/xfstests
tree=$out/tree
sysroot=$out/sysroot

if [ ! -r "$tarball" ]; then
	[ -z "${AFS_XFSTESTS_TARBALL:-}" ] ||
		{ echo "xfstests: cannot read $AFS_XFSTESTS_TARBALL" >&2; exit 1; }
	echo "xfstests: no fstests tarball" >&2
	exit 77
fi

# Clean packages (no service, no module): the build's tools and headers, and
# what fstests runs in the guest beyond coreutils and util-linux, and the
# libraries of the unpacked xfs_io.
"$repo/scripts/install-deps.sh" autoconf automake libtool libtool-bin \
	libacl1-dev libaio-dev bc psmisc libedit2 libdevmapper1.02.1 libbsd0 >&2

stamp=$(stat -c '%s %Y' "$tarball"; cat "$0")
if [ -x "$tree/ltp/fsx" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$tree"
	exit 0
fi

echo "xfstests: building from $tarball" >&2
rm -rf "$out"
mkdir -p "$tree" "$sysroot" "$out/deb"
tar -C "$tree" --strip-components=1 -xzf "$tarball"
(cd "$out/deb" && apt-get download -q xfsprogs xfslibs-dev >&2)
for deb in "$out"/deb/*.deb; do
	dpkg-deb -x "$deb" "$sysroot"
done

# libhandle.so in xfslibs-dev is a relative link to ../../../lib/...; both
# resolve inside the sysroot.
lib=$sysroot/usr/lib/x86_64-linux-gnu
[ -e "$lib/libhandle.so" ] || lib=$sysroot/lib/x86_64-linux-gnu
(cd "$tree" &&
 export CPPFLAGS="-I$sysroot/usr/include" LDFLAGS="-L$lib -Wl,-rpath-link,$lib" &&
 make -j"$(nproc)" > "$out/build.log" 2>&1) ||
	{ tail -n 30 "$out/build.log" >&2; exit 1; }
echo "$stamp" > "$out/stamp"
echo "xfstests: built in $tree" >&2
echo "$tree"
