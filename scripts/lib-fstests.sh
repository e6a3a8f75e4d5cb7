# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the scripts that build from upstream fstests' tarball
# (build-xfstests.sh, build-fsstress.sh), which set $repo.

# fstests_tarball: print the tarball's path: AFS_XFSTESTS_TARBALL if set,
# else shared/tools beside the repository, else shared/tools beside the
# repository this one was cloned from, if that is a folder on this machine
# (a clone in /tmp/x of the work tree finds the work tree's neighbour).
# Prints nothing when none of them is there.
fstests_tarball() {
	local origin t

	if [ -n "${AFS_XFSTESTS_TARBALL:-}" ]; then
		echo "$AFS_XFSTESTS_TARBALL"
		return
	fi
	# shellcheck disable=SC2154 # set by the sourcing script
	origin=$(git -C "$repo" config --get remote.origin.url 2>/dev/null || true)
	for t in "$repo/../shared/tools/xfstests.tar.gz" \
		 ${origin:+"$origin/../shared/tools/xfstests.tar.gz"}; do
		if [ -r "$t" ]; then
			echo "$t"
			return
		fi
	done
}

# fstests_missing <what>: a missing tarball fails the run unless
# AFS_ALLOW_NO_FSTESTS=1 says a skip is wanted; returns 0 to skip.
fstests_missing() {
	if [ "${AFS_ALLOW_NO_FSTESTS:-0}" = 1 ]; then
		echo "$1: no fstests tarball; skipped, as AFS_ALLOW_NO_FSTESTS=1 asks" >&2
		return 0
	fi
	echo "$1: no fstests tarball: put it at ../shared/tools/xfstests.tar.gz" \
	     "beside the repository or name it with AFS_XFSTESTS_TARBALL" \
	     "(AFS_ALLOW_NO_FSTESTS=1 skips what needs it)" >&2
	return 1
}
