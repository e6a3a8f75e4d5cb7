# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the scripts that build from upstream fstests' tarball
# (build-xfstests.sh, build-fsstress.sh), which set $repo.

# fstests_tarball: print the tarball's path: AFS_XFSTESTS_TARBALL if set,
# else shared/tools beside the repository, else /work/shared/tools, where a
# clone elsewhere (/tmp/x) finds the workplace's copy.  Prints nothing when
# none of them is there.
fstests_tarball() {
	if [ -n "${AFS_XFSTESTS_TARBALL:-}" ]; then
		echo "$AFS_XFSTESTS_TARBALL"
		return
	fi
	# shellcheck disable=SC2154 # set by the sourcing script
	for t in "$repo/../shared/tools/xfstests.tar.gz" \
		 /work/shared/tools/xfstests.tar.gz; do
		if [ -r "$t" ]; then
			echo "$t"
			return
		fi
	done
}
