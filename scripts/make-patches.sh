#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the overlay as a git format-patch series against the pristine
# linux-source-6.1 tree into build/patches/, then check that the series
# applies to the pristine tree and gives exactly the overlaid tree.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
out=$build/patches

tree=$("$repo/overlay.sh" | tail -n 1)

rm -rf "$out"
git -C "$tree" format-patch -q --no-signature -o "$out" pristine..overlay

# Apply the series to the pristine tree in a scratch index: no checkout needed.
export GIT_INDEX_FILE
GIT_INDEX_FILE=$(mktemp -u "$tree/.git/afs-check-index.XXXXXX")
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
git -C "$tree" read-tree pristine
for p in "$out"/*.patch; do
	git -C "$tree" apply --cached "$p" ||
		{ echo "make-patches: $(basename "$p") does not apply" >&2; exit 1; }
done
if [ "$(git -C "$tree" write-tree)" != "$(git -C "$tree" rev-parse 'overlay^{tree}')" ]; then
	echo "make-patches: the series does not reproduce the overlay" >&2
	exit 1
fi

ls "$out"
echo "make-patches: $(ls "$out" | wc -l) patches in $out apply to the pristine tree"
