#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Lay the project's kAFS sources, KUnit suites and patches over the kernel
# tree that Debian's linux-source-6.1 package installs.
#
# The tree is extracted once into $AFS_BUILD_DIR/linux (default: build/ in
# this repository) and made a git repository whose first commit, tagged
# "pristine", is the untouched import.  Each run rebuilds branch "overlay" on
# top of it as the commits the series file lists, with git plumbing only,
# then rewrites just the files whose content changed, so that unchanged
# files keep their mtime and kbuild rebuilds only what changed.
#
# The last line of output is the overlaid tree's absolute path:
#	tree=$(./overlay.sh | tail -n 1)

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
tarball=${AFS_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
tree=$build/linux

say() { printf 'overlay: %s\n' "$*" >&2; }
die() { printf 'overlay: error: %s\n' "$*" >&2; exit 1; }

# Let callers skip the package check when they have just done it.
if [ -z "${AFS_SKIP_DEPS:-}" ]; then
	"$repo/scripts/install-deps.sh" >&2
fi

[ -r "$tarball" ] || die "$tarball not found (is linux-source-6.1 installed?)"

version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
stamp="$(basename "$tarball") $version $(stat -c '%s %Y' "$tarball")"

git_tree() {
	git -C "$tree" -c user.name=overlay -c user.email=overlay@localhost \
		-c core.looseCompression=1 "$@"
}

# 1. The pristine import, once per tarball.
if [ "$(cat "$tree/.git/afs-pristine-stamp" 2>/dev/null)" != "$stamp" ]; then
	say "importing $tarball (linux-source-6.1 $version) into $tree"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -C "$tree" --strip-components=1 -xJf "$tarball"
	git_tree init -q -b overlay
	# Force-add: the import must be the whole tarball, whatever the
	# kernel's own .gitignore files say.
	git_tree add -A -f .
	git_tree commit -q -m "pristine: linux-source-6.1 $version" \
		-m "Imported unmodified from $(basename "$tarball")."
	git_tree tag -f pristine >/dev/null
	echo "$stamp" > "$tree/.git/afs-pristine-stamp"
fi
say "using linux-source-6.1 $version"

# 2. Build the overlay commits in a private index: the work tree is not
#    touched until the result is known.
export GIT_INDEX_FILE=$tree/.git/afs-overlay-index
rm -f "$GIT_INDEX_FILE"
git_tree read-tree pristine
head=$(git_tree rev-parse pristine)

commit_index() {	# commit_index <message file>
	local t
	t=$(git_tree write-tree)
	head=$(git_tree commit-tree "$t" -p "$head" -F "$1")
}

msg=$(mktemp)
trap 'rm -f "$msg" "$msg.patch" "$msg.info" "$msg.tmp"' EXIT

add_file() {	# add_file <source> <path in tree>
	local blob
	blob=$(git_tree hash-object -w --path="$2" "$(realpath "$1")")
	git_tree update-index --add --cacheinfo "100644,$blob,$2"
}

add_suites() {
	local f

	# The kunitconfig goes in too, so that
	# "kunit.py run --kunitconfig=fs/afs" works in the tree.
	for f in "$repo"/kunit/*; do
		[ -f "$f" ] && add_file "$f" "fs/afs/tests/$(basename "$f")"
	done
	add_file "$repo/.kunitconfig" fs/afs/.kunitconfig
	printf '%s\n\n%s\n' "afs: add the project's KUnit suites" \
		"Suites from the project's kunit/ directory, and fs/afs/.kunitconfig." > "$msg"
	commit_index "$msg"
}

add_rewrite() {	# add_rewrite <name in fs-afs/>
	[ -f "$repo/fs-afs/$1" ] || die "series: fs-afs/$1 not found"
	add_file "$repo/fs-afs/$1" "fs/afs/$1"
	printf '%s\n\n%s\n' "afs: $1: replace with the project's rewrite" \
		"From the project's fs-afs/$1." > "$msg"
	commit_index "$msg"
}

add_patch() {	# add_patch <name in patches/>
	local p=$repo/patches/$1

	[ -f "$p" ] || die "series: patches/$1 not found"
	git_tree apply --cached "$p" ||
		die "$1 does not apply where the series puts it"
	git_tree mailinfo "$msg" "$msg.patch" < "$p" > "$msg.info"
	{ sed -n 's/^Subject: //p' "$msg.info"; echo; cat "$msg"; } > "$msg.tmp"
	mv "$msg.tmp" "$msg"
	commit_index "$msg"
}

# The series file orders the commits, so that each one builds.
listed=" "
while read -r kind name rest; do
	case $kind in
	''|'#'*)	continue ;;
	suites)		add_suites ;;
	file)		add_rewrite "$name" ;;
	patch)		add_patch "$name" ;;
	*)		die "series: unknown line '$kind $name $rest'" ;;
	esac
	listed+="$name "
done < "$repo/series"

for f in "$repo"/fs-afs/* "$repo"/patches/*.patch; do
	[ -e "$f" ] || continue
	[[ $listed == *" $(basename "$f") "* ]] ||
		die "$(basename "$f") is not in the series file"
done

unset GIT_INDEX_FILE
old=$(git_tree rev-parse -q --verify refs/heads/overlay || true)
git_tree update-ref refs/heads/overlay "$head"
git_tree symbolic-ref HEAD refs/heads/overlay

# 3. Bring the work tree and the real index to the new overlay, touching
#    only the files whose content differs.
{
	git_tree diff --name-only pristine "$head"
	[ -n "$old" ] && git_tree diff --name-only pristine "$old"
} | sort -u | while read -r path; do
	want=$(git_tree rev-parse -q --verify "$head:$path" || true)
	have=
	[ -f "$tree/$path" ] && have=$(git_tree hash-object "$tree/$path")
	if [ "$want" = "$have" ]; then
		:
	elif [ -n "$want" ]; then
		mkdir -p "$(dirname "$tree/$path")"
		git_tree cat-file blob "$want" > "$tree/$path"
		say "updated $path"
	else
		rm -f "$tree/$path"
		say "removed $path"
	fi
	git_tree add -A -f -- "$path"
done

say "$(git_tree rev-list --count pristine..overlay) commits on pristine"
echo "$tree"
