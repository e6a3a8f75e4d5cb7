#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the end-to-end guest's initramfs from the machine's own Debian
# packages: static busybox, the OpenAFS servers and tools with their
# libraries, our static helpers, and e2e/init.  Rebuilt only when an input
# changes.  Prints the image's path.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
out=$build/e2e
image=$out/initramfs.cpio.gz

# Never with recommends: openafs-client recommends the OpenAFS kernel
# module's DKMS package, which must not be built for this machine.
"$repo/scripts/install-deps.sh" openafs-fileserver openafs-dbserver \
	openafs-client busybox-static cpio gzip >&2

afs_bins=(/usr/sbin/bosserver /usr/bin/bos /usr/bin/vos /usr/bin/pts
	  /usr/lib/openafs/ptserver /usr/lib/openafs/vlserver
	  /usr/lib/openafs/fileserver /usr/lib/openafs/volserver
	  /usr/lib/openafs/salvager)

stamp=$( { dpkg-query -W openafs-fileserver openafs-dbserver openafs-client \
		busybox-static libc6; cat "$repo"/e2e/*; } | sha256sum | cut -d' ' -f1)
if [ -f "$image" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$image"
	exit 0
fi

echo "e2e: building the initramfs" >&2
root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,usr/bin,usr/sbin,usr/lib/openafs}

cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# The binaries and every library they load, at the same paths.
for bin in "${afs_bins[@]}"; do
	cp "$bin" "$root$bin"
	ldd "$bin" | grep -o '/[^ ]*' | while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done

for helper in "$repo"/e2e/*.c; do
	gcc -static -O2 -Wall -Werror -o "$root/bin/$(basename "$helper" .c)" "$helper"
done
install -m 0755 "$repo/e2e/init" "$root/init"

echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"
echo '127.0.0.1 localhost' > "$root/etc/hosts"
echo 'hosts: files' > "$root/etc/nsswitch.conf"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$image.tmp"
mv "$image.tmp" "$image"
echo "$stamp" > "$out/stamp"
echo "e2e: $(du -h "$image" | cut -f1) initramfs" >&2
echo "$image"
