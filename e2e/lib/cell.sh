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
	bosserver -noauth || { echo "bosserver did not start"; return 1; }
	wait_for 30 bos status $HOST -noauth ||
		{ echo "bosserver does not answer"; return 1; }
	bos create $HOST ptserver simple /usr/lib/openafs/ptserver -noauth
	# Bound to $ADDR only, so that more VL servers can listen on other
	# loopback addresses (cell_add_vlserver).
	bos create $HOST vlserver simple "/usr/lib/openafs/vlserver -rxbind" -noauth
	wait_for 60 vos listvldb -noauth || { echo "no VLDB quorum"; return 1; }
	bos create $HOST fs fs /usr/lib/openafs/fileserver \
		/usr/lib/openafs/volserver /usr/lib/openafs/salvager -noauth
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
