# SPDX-License-Identifier: GPL-2.0
#
# An OpenAFS cell on the guest's own loopback, sourced by /init and by the
# topics that need more servers.  OpenAFS refuses 127.0.x.x, hence 127.1/16
# addresses; see ../shared/reference/openafs-e2e.md for why each step is
# there.  Administration runs with -noauth (an empty NoAuth file).

CELL=test.example
ADDR=127.1.0.1
HOST=afs.$CELL
AFS=/afs

# cell_configure: the addresses, host names and configuration files.
cell_configure() {
	ip link set lo up
	ip addr add $ADDR/32 dev lo
	hostname afs
	echo "$ADDR $HOST afs" >> /etc/hosts
	mkdir -p /var/log/openafs /var/lib/openafs/db /var/lib/openafs/local \
		/vicepa $AFS
	for d in /etc/openafs/server /etc/openafs; do
		mkdir -p $d
		echo $CELL > $d/ThisCell
		printf '>%s #e2e cell\n%s #%s\n' $CELL $ADDR $HOST > $d/CellServDB
	done
	echo "f $ADDR" > /var/lib/openafs/local/NetInfo
	: > /var/lib/openafs/local/NoAuth
	: > /vicepa/AlwaysAttach
}

# cell_start: the bosserver, the database servers, one fileserver with
# partition /vicepa, and root.afs and root.cell.  Returns non-zero, having
# said why, if a server does not come up.
cell_start() {
	say "starting bosserver"
	# -rxbind here and below: a second fileserver may listen on the same
	# ports at another address (cell_add_fileserver).
	bosserver -noauth -rxbind || { echo "bosserver did not start"; return 1; }
	wait_for 30 bos status $HOST -noauth ||
		{ echo "bosserver does not answer"; return 1; }
	bos create $HOST ptserver simple /usr/lib/openafs/ptserver -noauth
	# Bound to $ADDR only, so that more VL servers can listen on other
	# loopback addresses (cell_add_vlserver).
	bos create $HOST vlserver simple "/usr/lib/openafs/vlserver -rxbind" -noauth
	wait_for 60 vos listvldb -noauth || { echo "no VLDB quorum"; return 1; }
	bos create $HOST fs fs "/usr/lib/openafs/fileserver -rxbind" \
		"/usr/lib/openafs/volserver -rxbind" /usr/lib/openafs/salvager -noauth
	wait_for 60 sh -c "vos listaddrs -noresolve -noauth | grep -q $ADDR" ||
		{ echo "the fileserver did not register"; return 1; }
	wait_for 60 vos partinfo $ADDR -noauth ||
		{ echo "the volserver does not answer"; return 1; }
	for v in root.afs root.cell; do
		volume_create $v || return 1
	done

	# The fileserver grants the client's address the groups it is in:
	# make the anonymous kAFS client an administrator, which root ACLs
	# let write.
	pts createuser -name $ADDR -noauth > /dev/null
	pts adduser -user $ADDR -group system:administrators -noauth
	say "cell $CELL is up"
}

# volume_create <name> [server address]: a read-write volume without quota.
volume_create() {
	vos create "${2:-$ADDR}" a "$1" -maxquota 0 -noauth > /dev/null ||
		{ echo "vos create $1 failed"; return 1; }
}

# volume_kb <name>: the volume's size in KiB as the server sees it.
volume_kb() {
	vos examine "$1" -noauth | sed -n "s/^$1 .* \([0-9]*\) K .*/\1/p"
}

# cell_add_fileserver <address>: another fileserver in the cell, with its own
# bosserver, configuration, state, logs and partition /vicepa, in a mount
# namespace of its own, on <address> (-rxbind); registered in the VLDB, and
# the client's address there made an administrator too (kAFS reaches it from
# <address>).  Returns non-zero, having said why, if it does not come up.
cell_add_fileserver() {
	fs_addr=$1
	fs_root=/tmp/fs-$fs_addr
	ip addr add "$fs_addr/32" dev lo
	mkdir -p "$fs_root/etc" "$fs_root/local" "$fs_root/log" "$fs_root/vicepa"
	cp -a /etc/openafs/. "$fs_root/etc/"
	rm -f "$fs_root/etc/BosConfig"
	echo "f $fs_addr" > "$fs_root/local/NetInfo"
	: > "$fs_root/local/NoAuth"
	: > "$fs_root/vicepa/AlwaysAttach"
	unshare -m sh -c "
		mount --bind $fs_root/etc /etc/openafs &&
		mount --bind $fs_root/local /var/lib/openafs/local &&
		mount --bind $fs_root/log /var/log/openafs &&
		mount --bind $fs_root/vicepa /vicepa &&
		exec bosserver -noauth -rxbind" ||
		{ echo "bosserver on $fs_addr did not start"; return 1; }
	wait_for 30 bos status "$fs_addr" -noauth ||
		{ echo "bosserver on $fs_addr does not answer"; return 1; }
	bos create "$fs_addr" fs fs "/usr/lib/openafs/fileserver -rxbind" \
		"/usr/lib/openafs/volserver -rxbind" /usr/lib/openafs/salvager -noauth
	wait_for 60 sh -c "vos listaddrs -noresolve -noauth | grep -q $fs_addr" ||
		{ echo "the fileserver on $fs_addr did not register"; return 1; }
	wait_for 60 vos partinfo "$fs_addr" -noauth ||
		{ echo "the volserver on $fs_addr does not answer"; return 1; }
	pts createuser -name "$fs_addr" -noauth > /dev/null
	pts adduser -user "$fs_addr" -group system:administrators -noauth
}

# cell_add_vlserver <address> <dir>: one more VL server for the cell's
# volumes, on another loopback address: a vlserver of its own (ubik of one)
# over a copy of the VLDB as it is now, so volumes created after it started
# are not in it.  Its configuration, database and log are under <dir>; it
# gets its own NetInfo through a private mount of the server's local
# directory, and a host name of its own that resolves to <address> (ubik
# takes the host name's address for its own, and must find it among the
# NetInfo ones).  Started again on the database it had if <dir> exists.
cell_add_vlserver() {
	vl_addr=$1 vl_dir=$2
	vl_host=vl-$(echo "$vl_addr" | tr . -)
	ip addr add "$vl_addr/32" dev lo 2> /dev/null
	grep -q " $vl_host\$" /etc/hosts || echo "$vl_addr $vl_host" >> /etc/hosts
	if [ ! -d "$vl_dir" ]; then
		mkdir -p "$vl_dir/etc" "$vl_dir/local" "$vl_dir/db"
		echo $CELL > "$vl_dir/etc/ThisCell"
		printf '>%s #e2e cell\n%s #vl %s\n' $CELL "$vl_addr" "$vl_addr" \
			> "$vl_dir/etc/CellServDB"
		echo "f $vl_addr" > "$vl_dir/local/NetInfo"
		cp /var/lib/openafs/db/vldb.DB0 "$vl_dir/db/vldb.DB0" || return 1
		[ ! -f /var/lib/openafs/db/vldb.DBSYS1 ] ||
			cp /var/lib/openafs/db/vldb.DBSYS1 "$vl_dir/db/vldb.DBSYS1"
	fi
	unshare -m -u sh -c "hostname $vl_host &&
		mount --bind '$vl_dir/local' /var/lib/openafs/local &&
		exec /usr/lib/openafs/vlserver -noauth -rxbind \
			-config '$vl_dir/etc' -database '$vl_dir/db/vldb' \
			-logfile '$vl_dir/VLLog'" > "$vl_dir/out" 2>&1 &
	echo $! > "$vl_dir/pid"
	wait_for 60 vos listvldb -noauth -config "$vl_dir/etc" ||
		{ echo "the VL server on $vl_addr does not answer"; cat "$vl_dir/out" "$vl_dir/VLLog"; return 1; }
}

# cell_kill_vlserver <dir>: kill a VL server cell_add_vlserver started, and
# wait until it is gone (or a zombie: its socket is closed either way).
cell_kill_vlserver() {
	vl_pid=$(cat "$1/pid") || return 1
	kill -9 "$vl_pid" 2> /dev/null
	wait_for 10 sh -c "[ ! -e /proc/$vl_pid ] || grep -q ') Z ' /proc/$vl_pid/stat"
}
