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

# The OpenAFS programs, request-key and keyctl are unpacked from their packages,
# never installed here (scripts/guest-debs.sh); busybox-static and cpio are
# mere tools.
"$repo/scripts/install-deps.sh" busybox-static cpio gzip >&2
debroot=$("$repo/scripts/guest-debs.sh")
libpath=$debroot/usr/lib/x86_64-linux-gnu:$debroot/lib/x86_64-linux-gnu

afs_bins=(/usr/sbin/bosserver /usr/bin/bos /usr/bin/vos /usr/bin/pts
	  /usr/lib/openafs/ptserver /usr/lib/openafs/vlserver
	  /usr/lib/openafs/fileserver /usr/lib/openafs/volserver
	  /usr/lib/openafs/salvager /sbin/request-key /bin/keyctl)
# The tokens topic's realm and tools, and what the KDC loads with dlopen():
# its database module and libverto's event loop.
libdir=/usr/lib/x86_64-linux-gnu
krb_bins=(/usr/sbin/krb5kdc /usr/sbin/kdb5_util /usr/sbin/kadmin.local
	  /usr/bin/kinit /usr/bin/klist /usr/sbin/asetkey /usr/bin/aklog-kafs
	  $libdir/krb5/plugins/kdb/db2.so $libdir/libverto-libev.so.1)

# fstests' fsstress, when its source is at hand, for the loaded-server check.
fsstress=$("$repo/scripts/build-fsstress.sh")

stamp=$( { cat "$debroot.stamp"; dpkg-query -W busybox-static libc6;
	  find "$repo/e2e" -type f | sort | xargs cat;
	  [ -z "$fsstress" ] || cat "$fsstress"; } | sha256sum | cut -d' ' -f1)
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

# The binaries and every library they load, at the paths they have on a
# machine where the packages are installed.
for bin in "${afs_bins[@]}" "${krb_bins[@]}"; do
	# A library this machine already has is not unpacked (guest-debs.sh).
	src=$debroot$bin
	[ -e "$src" ] || src=$bin
	mkdir -p "$(dirname "$root$bin")"
	cp -L "$src" "$root$bin"
	libs=$(LD_LIBRARY_PATH=$libpath ldd "$src")
	if grep "not found" <<< "$libs" >&2; then
		echo "e2e: $bin: a library above is in no package unpacked" >&2
		exit 1
	fi
	grep -o '/[^ ]*' <<< "$libs" |
	while read -r lib; do
		dest=$root${lib#"$debroot"}
		[ -e "$dest" ] && continue
		mkdir -p "$(dirname "$dest")"
		cp -L "$lib" "$dest"
	done
done

for helper in "$repo"/e2e/helpers/*.c; do
	gcc -static -O2 -Wall -Werror -o "$root/bin/$(basename "$helper" .c)" "$helper"
done
[ -z "$fsstress" ] || cp "$fsstress" "$root/bin/fsstress"
install -m 0755 "$repo/e2e/init" "$root/init"
mkdir -p "$root/e2e"
cp -r "$repo/e2e/lib" "$repo/e2e/topics" "$repo/e2e/long" "$repo/e2e/xfstests.sh" \
	"$root/e2e/"

echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"
echo '127.0.0.1 localhost' > "$root/etc/hosts"
echo 'hosts: files' > "$root/etc/nsswitch.conf"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$image.tmp"
mv "$image.tmp" "$image"
echo "$stamp" > "$out/stamp"
echo "e2e: $(du -h "$image" | cut -f1) initramfs" >&2
echo "$image"
