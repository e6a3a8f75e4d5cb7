# SPDX-License-Identifier: GPL-2.0
#
# Cells: malformed commands to /proc/net/afs/cells each fail at once and
# leave kAFS working (the address-list grammar, docs/addr_list.md).

# cells_bad <command>: refused within a second.
cells_bad() {
	t0=$(uptime_s)
	if timeout 5 sh -c "echo '$1' > /proc/net/afs/cells"; then
		echo "accepted: $1"
		return 1
	fi
	[ $(($(uptime_s) - t0)) -le 1 ]
}
check "cells: an empty address entry is refused" cells_bad "add x1.example ,1.2.3.4"
check "cells: a doubled delimiter is refused" cells_bad "add x2.example 1.2.3.4,,5.6.7.8"
check "cells: a trailing delimiter is refused" cells_bad "add x3.example 1.2.3.4:"
check "cells: a missing delimiter after a port is refused" \
	cells_bad "add x4.example 1.2.3.4+7001[::1]"
check "cells: a port over 65535 is refused" cells_bad "add x5.example 1.2.3.4+65536"
check "cells: garbage is refused" cells_bad "add x6.example not-an-address"
check "cells: a good command still works" sh -c "
	echo 'add good.example 10.9.8.7' > /proc/net/afs/cells &&
	grep -q good.example /proc/net/afs/cells && ! grep -q x1.example /proc/net/afs/cells"
check "cells: the volume still answers" sh -c "afs-mount %$CELL:e2e $AFS &&
	ls $AFS > /dev/null; rc=\$?; umount $AFS; exit \$rc"
