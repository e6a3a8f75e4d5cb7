#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack the Debian packages whose programs run only in the guests (the
# OpenAFS servers and tools, and the libraries they need that this machine
# lacks) into a directory, without installing them: no service is enabled
# and no maintainer script runs on this machine.  Packages that are merely
# tools here (busybox-static, cpio) are installed normally.
#
#	scripts/guest-debs.sh		prints the directory
#
# The .debs are kept in $AFS_BUILD_DIR/debs; the unpacked tree is rebuilt
# only when the package versions change.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
debs=$build/debs
root=$build/guest-root

# keyutils: /sbin/request-key, for the dns_resolver upcall.  The KDC, the
# Kerberos tools, asetkey and aklog-kafs: the tokens topic's realm.
want=(openafs-fileserver openafs-dbserver openafs-client keyutils
      krb5-kdc krb5-admin-server krb5-user openafs-krb5 kafs-client)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed'
}

for p in "${want[@]}"; do
	if installed "$p"; then
		echo "guest-debs: $p is installed on this machine; it should not be" \
		     "(see README: the host is left as it was)" >&2
	fi
done

# The programs' packages, and every library in their dependency closure that
# this machine does not have.
mapfile -t closure < <(apt-cache depends --recurse --no-recommends \
	--no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
	"${want[@]}" 2>/dev/null |
	grep -E '^(openafs-|keyutils$|krb5-(kdc|admin-server|user)$|kafs-client$|lib)' |
	sort -u)
[ ${#closure[@]} -ge ${#want[@]} ] ||
	{ echo "guest-debs: apt knows no openafs packages; run apt-get update" >&2; exit 1; }
pkgs=()
for p in "${closure[@]}"; do
	case $p in
	lib*)		installed "$p" || pkgs+=("$p") ;;
	*)		pkgs+=("$p") ;;
	esac
done

stamp=$(apt-cache policy "${pkgs[@]}" | sha256sum | cut -d' ' -f1)
if [ -d "$root" ] && [ "$(cat "$root.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$root"
	exit 0
fi

echo "guest-debs: fetching ${pkgs[*]}" >&2
mkdir -p "$debs"
(cd "$debs" && apt-get download -q "${pkgs[@]}" >&2) || {
	echo "guest-debs: apt-get download failed; trying after apt-get update" >&2
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -q >&2
	(cd "$debs" && apt-get download -q "${pkgs[@]}" >&2)
}

rm -rf "$root"
mkdir -p "$root"
for p in "${pkgs[@]}"; do
	deb=$(ls -t "$debs/${p}_"*.deb | head -n 1)
	dpkg-deb -x "$deb" "$root"
done
echo "$stamp" > "$root.stamp"
echo "$root"
