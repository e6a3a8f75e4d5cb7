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

# Which suites a series line brings: kunit/S for each word kunit/S, and
# kunit/X_kunit.c, if it exists, for each word X.c.
suites_of() {	# suites_of <word>...
	local w
	for w; do
		case $w in
		kunit/*)	echo "${w#kunit/}" ;;
		*.c)		[ -f "$repo/kunit/${w%.c}_kunit.c" ] &&
					echo "${w%.c}_kunit.c" ;;
		esac
	done
	return 0
}

# The suites some file or patch line brings; the "suites" line brings the rest.
claimed=" "
while read -r -a words; do
	case ${words[0]:-} in
	file|patch)	claimed+="$(suites_of "${words[@]:1}" | tr '\n' ' ')" ;;
	esac
done < "$repo/series"
added=" "

add_suite() {	# add_suite <name in kunit/>
	[ -f "$repo/kunit/$1" ] || die "series: kunit/$1 not found"
	add_file "$repo/kunit/$1" "fs/afs/tests/$1"
	added+="$1 "
}

add_words() {	# add_words <word>...: fs-afs/NAME or kunit/NAME, with suites
	local w s
	for w; do
		case $w in
		kunit/*)	;;
		*)	[ -f "$repo/fs-afs/$w" ] || die "series: fs-afs/$w not found"
			add_file "$repo/fs-afs/$w" "fs/afs/$w"
			listed+="$w " ;;
		esac
	done
	for s in $(suites_of "$@"); do
		add_suite "$s"
	done
}

# The commit message for a line: messages/<key>.msg (subject, blank line,
# body), or else a placeholder that "make patches" refuses.
missing=$tree/.git/afs-overlay-missing-messages
: > "$missing"
message() {	# message <key> <placeholder subject> <placeholder body>
	if [ -f "$repo/messages/$1.msg" ]; then
		cp "$repo/messages/$1.msg" "$msg"
	else
		printf '%s\n\n%s\n' "$2" "$3" > "$msg"
		echo "$1" >> "$missing"
	fi
}

add_suites() {
	local f

	# The kunitconfig goes in too, so that
	# "kunit.py run --kunitconfig=fs/afs" works in the tree.
	add_file "$repo/.kunitconfig" fs/afs/.kunitconfig
	for f in "$repo"/kunit/*; do
		f=$(basename "$f")
		[[ $claimed == *" $f "* ]] || add_suite "$f"
	done
	message suites "afs: add the project's KUnit suites" \
		"Suites from the project's kunit/ directory, and fs/afs/.kunitconfig."
	commit_index "$msg"
}

add_rewrite() {	# add_rewrite <name in fs-afs/> [more names...]
	[ $# -gt 0 ] || die "series: a 'file' line names no file"
	add_words "$@"
	message "$1" "afs: $1: replace with the project's rewrite" \
		"From the project's fs-afs/$*."
	commit_index "$msg"
}

add_patch() {	# add_patch <name in patches/> [more names...]
	local p=$repo/patches/${1:-}

	[ -f "$p" ] || die "series: patches/$1 not found"
	# --recount: a hand-edited patch (a line added to a help text) need
	# not have its hunk headers fixed.  A format-patch signature ("-- "
	# and a version at the end) would then read as a hunk line: drop it.
	awk '{ l[NR] = $0 }
	     END { n = NR
		   for (i = NR; i > 0; i--) if (l[i] == "-- ") break
		   if (i > 0) { n = i - 1
				for (j = i + 1; j <= NR; j++)
					if (l[j] ~ /^([-+ @]|diff )/) n = NR }
		   for (i = 1; i <= n; i++) print l[i] }' "$p" > "$msg.patch"
	git_tree apply --cached --recount "$msg.patch" ||
		die "$1 does not apply where the series puts it"
	listed+="$1 "
	shift
	add_words "$@"
	git_tree mailinfo "$msg" "$msg.patch" < "$p" > "$msg.info"
	{ sed -n 's/^Subject: //p' "$msg.info"; echo; cat "$msg"; } > "$msg.tmp"
	mv "$msg.tmp" "$msg"
	commit_index "$msg"
}

# The series file orders the commits, so that each one builds.
listed=" "
while read -r -a words; do
	case ${words[0]:-} in
	''|'#'*)	continue ;;
	suites)		add_suites; listed+="suites " ;;
	file)		add_rewrite "${words[@]:1}" ;;
	patch)		add_patch "${words[@]:1}" ;;
	*)		die "series: unknown line '${words[*]}'" ;;
	esac
done < "$repo/series"

for f in "$repo"/fs-afs/* "$repo"/patches/*.patch; do
	[ -e "$f" ] || continue
	[[ $listed == *" $(basename "$f") "* ]] ||
		die "$(basename "$f") is not in the series file"
done
[[ $listed == *" suites "* ]] ||
	die "series: no 'suites' line, which brings .kunitconfig"
for f in "$repo"/kunit/*; do
	[ -e "$f" ] || continue
	[[ $added == *" $(basename "$f") "* ]] ||
		die "kunit/$(basename "$f") is not in the series file"
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
