# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the scripts that build a kernel or boot a guest.  This machine
# has two cores: one kernel build or one guest at a time, whichever clone or
# work tree it comes from.  heavy_lock waits for the machine-wide lock and
# holds it until the calling script (and whatever it started) exits; a
# script called by one that holds it does not wait again.

heavy_lock() {
	[ -n "${AFS_HEAVY_LOCKED:-}" ] && return 0
	exec 9>>"${AFS_HEAVY_LOCK:-/tmp/kafs-heavy.lock}"
	if ! flock -n 9; then
		echo "${0##*/}: waiting for another kernel build or guest to end" >&2
		flock 9
	fi
	export AFS_HEAVY_LOCKED=1
}
