#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the overlay as a patch series against the pristine linux-source-6.1
# tree, into $AFS_BUILD_DIR/patches, and check it as a maintainer would:
#
#   1. Every commit's author and Signed-off-by are the git identity of
#      whoever runs this (as "git format-patch --signoff" would use); with
#      none configured, it stops and says how to set one.
#   2. Every commit has a message of its own (messages/, or the patch's),
#      and no patch in patches/ names an author (a From: line) of its own.
#   3. checkpatch.pl --strict, from the tree, passes on every patch.
#   4. "git am" applies the series to a fresh pristine work tree and gives
#      exactly the overlaid tree.
#   5. Every commit builds: allnoconfig plus AFS and its KUnit suites, a
#      full vmlinux at each commit, with no warning in fs/afs/.
#   6. The result builds with the x86_64 KUnit config and its suites pass
#      (kunit.py, under QEMU).
#   7. 0000-cover-letter.patch: messages/cover-letter.msg, the series'
#      shortlog and diffstat, and what 3 to 6 printed.
#
# Everything is printed; the exit status is non-zero if any check failed.
# Builds take the machine-wide lock and go through ccache.  The work tree
# and build directories are kept in $AFS_BUILD_DIR/series-check, so that a
# second run rebuilds only what changed.

set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
out=$build/patches
check=$build/series-check
jobs=$(nproc)

say() { printf 'make-patches: %s\n' "$*"; }
die() { printf 'make-patches: error: %s\n' "$*" >&2; exit 1; }

# 1. Who signs.  git var honours GIT_AUTHOR_NAME/EMAIL and the config;
#    useConfigOnly stops it from making an identity up from the host name.
ident=$(git -C "$repo" -c user.useConfigOnly=true var GIT_AUTHOR_IDENT 2>/dev/null) ||
	die "no git identity to sign the series off with.  Set yours:
	git config --global user.name 'Your Name'
	git config --global user.email you@example.org
(or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL), then run make patches again."
name=${ident%% <*}
email=${ident#*<}
email=${email%%>*}
[ -n "$name" ] && [ -n "$email" ] || die "git identity '$ident' lacks a name or an email"
signoff="Signed-off-by: $name <$email>"
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
say "author and $signoff"

# checkpatch's SPDX check needs ply and GitPython.
"$repo/scripts/install-deps.sh" python3-ply python3-git

. "$repo/scripts/lib-lock.sh"
heavy_lock

tree=$(AFS_SKIP_DEPS=${AFS_SKIP_DEPS:-} "$repo/overlay.sh" | tail -n 1)
git_tree() { git -C "$tree" "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=()
report=$tmp/report	# what goes into the cover letter
: > "$report"
note() { echo "$*" | tee -a "$report"; }

# 2. Messages.
missing=$(cat "$tree/.git/afs-overlay-missing-messages" 2>/dev/null || true)
if [ -n "$missing" ]; then
	for m in $missing; do
		say "no commit message for series line '$m': write messages/$m.msg"
	done
	failed+=("messages")
fi
# A patch names no author of its own: the runner is the author, and any
# other identity in patches/ would be one nobody has.
for p in "$repo"/patches/*.patch; do
	if sed '/^$/q' "$p" | grep -q '^From: '; then
		say "patches/$(basename "$p") has a From: line: drop it, the author is whoever runs make patches"
		failed+=("From: in patches/")
	fi
done

# 1. The overlay's commits again, authored and signed off by the runner.
head=$(git_tree rev-parse pristine)
for c in $(git_tree rev-list --reverse pristine..overlay); do
	git_tree log -1 --format=%B "$c" |
		git_tree interpret-trailers --if-exists addIfDifferent \
			--trailer "$signoff" > "$tmp/msg"
	head=$(git_tree commit-tree "$(git_tree rev-parse "$c^{tree}")" \
		-p "$head" -F "$tmp/msg")
done
git_tree update-ref refs/heads/series "$head"
nr=$(git_tree rev-list --count pristine..series)

rm -rf "$out"
git_tree format-patch -q --no-signature --cover-letter -o "$out" pristine..series
patches=()
for p in "$out"/*.patch; do
	[[ $(basename "$p") == 0000-* ]] || patches+=("$p")
done
say "$nr patches in $out"

# 3. checkpatch, from the tree.  Its FILE_PATH_CHANGES warning asks, of
#    any patch that adds a file, whether MAINTAINERS needs updating; the
#    answer is checked here instead: every added file must fall under the
#    AFS FILESYSTEM entry.
unmaintained=0
for f in $(git_tree diff --name-only --diff-filter=A pristine series); do
	(cd "$tree" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
		--subsystem --no-email --no-l --no-rolestats -f "$f") |
		grep -qx 'AFS FILESYSTEM' || { say "$f is not under MAINTAINERS' AFS FILESYSTEM entry"; unmaintained=1; }
done
if [ "$unmaintained" -eq 0 ]; then
	note "MAINTAINERS: every file the series adds is under the AFS FILESYSTEM entry"
else
	failed+=("MAINTAINERS")
fi
# UNKNOWN_COMMIT_ID: the tree is Debian's source tarball, with no history
# of mainline's to look a Fixes: id up in.
note "checkpatch.pl --strict from the tree (FILE_PATH_CHANGES ignored: MAINTAINERS covers every added file, above; UNKNOWN_COMMIT_ID ignored: the tree has no mainline history):"
bad=0
for p in "${patches[@]}"; do
	# Debian's python3, which has ply and GitPython, for the SPDX check.
	res=$( (cd "$tree" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl \
		--strict --show-types --ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$p") 2>&1) || true
	# A CamelCase check on a name the pristine tree already has (a
	# protocol's type, as fs/afs/protocol_yfs.h names them) is answered
	# here: checkpatch seeds its list of known names from include/ only.
	# Any other check, warning or error fails.
	known=()
	for w in $(sed -n 's/^CHECK:CAMELCASE: Avoid CamelCase: <\(.*\)>$/\1/p' <<< "$res"); do
		git_tree grep -qw -e "$w" pristine -- fs/afs include && known+=("$w")
	done
	if ! grep -q "^total: 0 errors, 0 warnings, ${#known[@]} checks" <<< "$res" ||
	   grep -q 'Traceback' <<< "$res"; then
		sed 's/^/    /' <<< "$res"
		bad=1
	fi
	line="    $(basename "$p"): $(sed -n 's/^total: //p' <<< "$res" | tail -n 1)"
	[ ${#known[@]} -eq 0 ] ||
		line+=" (CamelCase that 6.1 already has: ${known[*]})"
	note "$line"
done
[ "$bad" -eq 0 ] || failed+=("checkpatch")

# 4. git am onto a fresh pristine work tree.
am=$check/linux
if [ ! -e "$am/.git" ]; then
	say "making a pristine work tree in $am"
	rm -rf "$am"
	mkdir -p "$check"
	git_tree worktree prune
	git_tree worktree add -q --detach "$am" pristine
fi
git -C "$am" am --abort > /dev/null 2>&1 || true
git -C "$am" checkout -q -f --detach pristine
git -C "$am" reset -q --hard pristine
git -C "$am" clean -q -fdx
commits=()
if git -C "$am" am -q --whitespace=error-all "${patches[@]}"; then
	mapfile -t commits < <(git -C "$am" rev-list --reverse pristine..HEAD)
	if [ "$(git -C "$am" rev-parse 'HEAD^{tree}')" != "$(git_tree rev-parse 'overlay^{tree}')" ]; then
		note "git am: the series applies but does not give the overlaid tree"
		failed+=("git am")
	else
		note "git am: $nr patches apply to pristine linux-source-6.1 and give the overlaid tree"
	fi
	for c in "${commits[@]}"; do
		a=$(git -C "$am" log -1 --format='%an <%ae>' "$c")
		if [ "$a" != "$name <$email>" ] ||
		   ! git -C "$am" log -1 --format=%B "$c" | grep -qxF "$signoff"; then
			note "git am: $(git -C "$am" log -1 --format=%s "$c"): author $a, or no $signoff"
			failed+=("identity")
		fi
	done
else
	git -C "$am" am --abort > /dev/null 2>&1 || true
	note "git am: the series does not apply to pristine linux-source-6.1"
	failed+=("git am")
fi

export CCACHE_BASEDIR=$check
cc=gcc
command -v ccache > /dev/null && cc="ccache gcc"

# 5. Every commit builds: allnoconfig, plus AFS and its suites.
allno=$check/allno
cat > "$tmp/allno.config" <<EOF
CONFIG_NET=y
CONFIG_INET=y
CONFIG_NETWORK_FILESYSTEMS=y
CONFIG_AFS_FS=y
CONFIG_KUNIT=y
CONFIG_AFS_KUNIT_TEST=y
EOF
kmake() {	# kmake <objdir> <args...>
	local o=$1

	shift
	make -C "$am" O="$o" ARCH=x86_64 CC="$cc" -j"$jobs" "$@"
}
if [ ${#commits[@]} -gt 0 ]; then
	note "each commit, allnoconfig + AFS + its suites, x86_64, make vmlinux:"
	mkdir -p "$allno"
	i=0
	for c in "${commits[@]}"; do
		i=$((i + 1))
		subject=$(git -C "$am" log -1 --format=%s "$c")
		git -C "$am" checkout -q --detach "$c"
		log=$allno/build-$i.log
		start=$(date +%s)
		if kmake "$allno" KCONFIG_ALLCONFIG="$tmp/allno.config" \
			allnoconfig > "$log" 2>&1 &&
		   kmake "$allno" vmlinux >> "$log" 2>&1; then
			warn=$(grep -E '^(\.\./linux/|[^ ]*/)?fs/afs/[^ ]*: (warning|error):' "$log" || true)
			kunit=no
			grep -q '^CONFIG_AFS_KUNIT_TEST=y' "$allno/.config" && kunit=yes
			# The suites, wherever the commit's Kconfig has them.
			want=no
			grep -q '^config AFS_KUNIT_TEST$' "$am/fs/afs/Kconfig" && want=yes
			if ! grep -q '^CONFIG_AFS_FS=y' "$allno/.config" ||
			   [ "$kunit" != "$want" ]; then
				note "    $i/$nr $subject: the config lacks AFS or its suites ($allno/.config)"
				failed+=("build $i")
			elif [ -n "$warn" ]; then
				echo "$warn" | sed 's/^/    /'
				note "    $i/$nr $subject: warnings in fs/afs/ ($log)"
				failed+=("build $i")
			else
				note "    $i/$nr $subject: built in $(( $(date +%s) - start )) s (suites: $kunit)"
			fi
		else
			grep -E 'error|Error' "$log" | head -n 20 | sed 's/^/    /' || true
			note "    $i/$nr $subject: does not build ($log)"
			failed+=("build $i")
		fi
	done
	git -C "$am" checkout -q --detach "${commits[-1]}"
fi

# 6. The result with the x86_64 KUnit config, and its suites.
if [ ${#commits[@]} -gt 0 ]; then
	kdir=$check/kunit-x86_64
	kunit=$am/tools/testing/kunit/kunit.py
	args=(--arch=x86_64 --build_dir="$kdir" --kunitconfig="$am/fs/afs"
	      --kunitconfig="$repo/kconfig/x86_64.config"
	      --kunitconfig="$repo/kconfig/boot.config"
	      --make_options="CC=$cc")
	say "building the result with the x86_64 KUnit config in $kdir"
	start=$(date +%s)
	if "$kunit" build "${args[@]}" --jobs="$jobs" > "$check/kunit-x86_64.build.log" 2>&1 < /dev/null; then
		built=$(date +%s)
		"$kunit" exec "${args[@]}" --timeout=600 --qemu_args="-smp 2" \
			--raw_output=all > "$check/kunit-x86_64.log" 2>&1 < /dev/null || true
		"$kunit" parse --raw_output=kunit "$check/kunit-x86_64.log" > "$check/kunit-x86_64.tap" || true
		parse_rc=0
		"$kunit" parse --json="$check/kunit-x86_64.json" "$check/kunit-x86_64.log" \
			> "$check/kunit-x86_64.txt" || parse_rc=$?
		line=$(python3 "$repo/scripts/kunit-count.py" "$check/kunit-x86_64.json" kunit-x86_64 2>&1 ||
		       echo "kunit-x86_64: no results")
		note "x86_64 KUnit config: built in $((built - start)) s, suites ran in QEMU in $(( $(date +%s) - built )) s:"
		note "    $line"
		python3 "$repo/scripts/kunit-count.py" --bench "$check/kunit-x86_64.json" \
			"$check/kunit-x86_64.tap" kunit-x86_64 2>/dev/null | sed 's/^/    /' | tee -a "$report" || true
		if [ "$parse_rc" -ne 0 ] ||
		   ! python3 "$repo/scripts/kunit-count.py" --check "$check/kunit-x86_64.json" ||
		   ! "$repo/scripts/check-console.sh" "$check/kunit-x86_64.log"; then
			grep -vE '\[PASSED\]|^\[[0-9:]+\] =+ *$' "$check/kunit-x86_64.txt" | sed 's/^/    /' || true
			note "    the suites failed ($check/kunit-x86_64.log)"
			failed+=("kunit")
		fi
	else
		grep -E 'error|Error' "$check/kunit-x86_64.build.log" | head -n 20 | sed 's/^/    /' || true
		note "x86_64 KUnit config: does not build ($check/kunit-x86_64.build.log)"
		failed+=("kunit build")
	fi
fi

# 7. The cover letter: the project's summary, then what was checked.
{
	cat "$repo/messages/cover-letter.msg"
	echo
	echo "Checked by make patches on $(date -u '+%Y-%m-%d'), against Debian's"
	echo "linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo '(unknown version)'):"
	echo
	sed 's/^/  /' "$report"
	if [ ${#failed[@]} -gt 0 ]; then
		echo
		echo "FAILED: ${failed[*]}"
	fi
} > "$tmp/cover"
git_tree config branch.series.description "$(cat "$tmp/cover")"
git_tree format-patch -q --no-signature --cover-letter --cover-from-description=subject \
	-o "$tmp/cover-out" pristine..series
cp "$tmp/cover-out"/0000-cover-letter.patch "$out/"

echo
ls "$out"
if [ ${#failed[@]} -gt 0 ]; then
	say "FAILED: ${failed[*]}"
	exit 1
fi
say "$nr patches and a cover letter in $out: checkpatch clean, git am onto pristine, every commit builds, the suites pass"
