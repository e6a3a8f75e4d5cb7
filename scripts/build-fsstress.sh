#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build upstream fstests' fsstress, statically, for the end-to-end guest: the
# load of generic/013, used by the rotation topic to load the fileserver.
# The source is fstests' tarball (found as scripts/lib-fstests.sh says);
# the XFS headers it needs are unpacked from xfslibs-dev into the build
# directory, not installed.  Never committed.
#
#	scripts/build-fsstress.sh	prints the binary's path
#
# When the tarball is missing, fails, or with AFS_ALLOW_NO_FSTESTS=1 prints
# nothing and exits 0: the topic then skips the checks that need the load.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
. "$repo/scripts/lib-fstests.sh"
tarball=$(fstests_tarball)
out=$build/fsstress
bin=$out/fsstress

if [ ! -r "$tarball" ]; then
	fstests_missing fsstress || exit 1
	exit 0
fi
stamp=$(stat -c '%s %Y' "$tarball")
if [ -x "$bin" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$bin"
	exit 0
fi

echo "fsstress: building from $tarball" >&2
rm -rf "$out"
mkdir -p "$out/src" "$out/hdr" "$out/deb"
tar -C "$out/src" --strip-components=1 -xzf "$tarball" \
	--wildcards '*/ltp/fsstress.c' '*/src/global.h' '*/include/*'
(cd "$out/deb" && apt-get download -q xfslibs-dev >&2)
dpkg-deb -x "$out"/deb/xfslibs-dev_*.deb "$out/hdr"

# What fstests' configure would find on a Debian machine, less the optional
# libraries (aio, uring, btrfsutil) that a static build does without.
cat > "$out/config.h" <<'EOF'
#define HAVE_ASSERT_H 1
#define HAVE_DIRENT_H 1
#define HAVE_ERRNO_H 1
#define HAVE_LIBGEN_H 1
#define HAVE_LINUX_FALLOC_H 1
#define HAVE_LINUX_FIEMAP_H 1
#define HAVE_MALLOC_H 1
#define HAVE_RENAMEAT2 1
#define HAVE_STDLIB_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_FCNTL_H 1
#define HAVE_SYS_IOCTL_H 1
#define HAVE_SYS_MMAN_H 1
#define HAVE_SYS_PARAM_H 1
#define HAVE_SYS_PRCTL_H 1
#define HAVE_SYS_STATVFS_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_WAIT_H 1
#define HAVE_TIME_H 1
#define HAVE_UNISTD_H 1
#define HAVE_WAIT_H 1
#define HAVE_XFS_XFS_H 1
EOF
gcc -static -O2 -D_GNU_SOURCE -w -I"$out" -I"$out/hdr/usr/include" \
	-I"$out/src/src" -I"$out/src/include" \
	-o "$bin.tmp" "$out/src/ltp/fsstress.c" -lm >&2
mv "$bin.tmp" "$bin"
echo "$stamp" > "$out/stamp"
echo "$bin"
