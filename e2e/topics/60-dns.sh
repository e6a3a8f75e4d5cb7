# SPDX-License-Identifier: GPL-2.0
#
# DNS: a cell that no configuration names is found through the
# dns_resolver upcall (/sbin/request-key runs our handler, which answers
# with a binary server list, include/uapi/linux/dns_resolver.h); a
# malformed answer is refused with a logged reason and leaves the cell's
# servers as they were (docs/dns_vl.md); and a cell whose first VL server
# dies carries on through its second.
#
# The cell's VL servers are vlservers of the topic's own on other loopback
# addresses, over copies of the VLDB less root.cell: with root.cell, kAFS
# would find the cell to be an alias of test.example
# (afs_cell_detect_alias() compares the root.cell volumes of cells), and
# send the first mount to test.example instead.
#
# A cell asks again once its record expires: at least ten minutes after an
# answer (afs_cell_min_ttl), ten seconds after a refusal.  Rather than wait,
# the checks move the clock on, so this topic leaves it hours ahead.  A
# cell no longer in use is taken down by its manager and the next use makes
# a new one; a mount held from the first check to the end keeps the same
# cell, with its server records, for the whole topic.

DNS_CELL=dns.example
DNS_VL1=127.1.0.6	# the cell's VL server
DNS_VL2=127.1.0.7	# its second, in the last check
DNS_BOGUS=127.1.0.99	# nothing listens there
DNS_MNT=/dns		# mounted for each use
DNS_HELD=/dns-held	# mounted for the whole topic
DNS=/tmp/dns
mkdir -p $DNS $DNS_MNT $DNS_HELD

# dns_vlserver <address> <dir>: a VL server for the cell, over a copy of
# the VLDB as it is now, less root.cell.  The deletion waits for the new
# server's ubik to elect itself, so kAFS never meets it without a quorum.
dns_vlserver() {
	cell_add_vlserver "$1" "$2" || return 1
	wait_for 60 vos delentry root.cell -noauth -config "$2/etc" ||
		{ echo "root.cell is still in the VLDB of $1"; return 1; }
}

# The handler answers with the payload in $DNS/answer (keyctl reads it from
# stdin), as a resolver would that asks for a five-second lifetime, and logs
# each upcall.
cat > $DNS/handler <<EOF
echo "upcall \$*" >> $DNS/log
keyctl timeout "\$1" 5
keyctl pinstantiate "\$1" 0 < $DNS/answer
echo "answered \$?" >> $DNS/log
EOF
echo "create dns_resolver afsdb:* * /bin/sh $DNS/handler %k %d" > /etc/request-key.conf
: > $DNS/log

# The payload, written as printf(1) escapes (so a server name must hold no
# % and no backslash).
# dns_hdr <servers>: a v1 server list from SRV records, status good.
dns_hdr() { printf '\\000\\000\\001\\004\\001\\%03o' "$1"; }
dns_le16() { printf '\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8)); }
# dns_server <name> <priority> <protocol> <addresses> [name length]:
# a server record up to its addresses; weight 0, port 0 (7003).
dns_server() {
	dns_le16 "${5:-${#1}}"
	dns_le16 "$2"
	dns_le16 0
	dns_le16 0
	printf '\\004\\001\\%03o\\%03o%s' "$3" "$4" "$1"
}
dns_ipv4() { echo "$1" | awk -F. '{ printf "\\000\\%03o\\%03o\\%03o\\%03o", $1, $2, $3, $4 }'; }
dns_answer() { printf "$1" > $DNS/answer; }

DNS_GOOD="$(dns_hdr 1)$(dns_server vl1.$DNS_CELL 0 1 1)$(dns_ipv4 $DNS_VL1)"
# The first record of each malformed payload is whole and gives the cell's
# one VL server an address where nothing answers: a decoder that applies
# records before it has read the payload to its end loses the cell.
DNS_BOGUS_VL1="$(dns_server vl1.$DNS_CELL 0 1 1)$(dns_ipv4 $DNS_BOGUS)"

# dns_use [volume]: mount one of the cell's volumes (e2e), list it, unmount
# it.
dns_use() {
	afs-mount %$DNS_CELL:${1:-e2e} $DNS_MNT || return 1
	ls $DNS_MNT > /dev/null
	rc=$?
	umount $DNS_MNT
	return $rc
}

# dns_refresh <payload>: answer with <payload> from now on, move the clock
# past the record's expiry, make a VL call (which starts the lookup; it
# goes on in the background) and wait until the handler has answered.
dns_refresh() {
	dns_answer "$1"
	n=$(grep -c '^answered' $DNS/log)
	date -s "@$(($(date +%s) + 660))" > /dev/null
	dns_use > /dev/null 2>&1
	wait_for 30 sh -c "[ \$(grep -c '^answered' $DNS/log) -gt $n ]" ||
		{ echo "no upcall answered"; cat $DNS/log; return 1; }
	tail -n 1 $DNS/log | grep -q '^answered 0$' ||
		{ echo "the handler failed:"; tail -n 2 $DNS/log; return 1; }
}

# dns_vl1_intact: the cell still has its VL server, at its address, and
# looks up volumes through it.
dns_vl1_intact() {
	ok=0
	grep -q "^vl1.$DNS_CELL " /proc/net/afs/$DNS_CELL/vlservers &&
		grep -q " $DNS_VL1:7003\$" /proc/net/afs/$DNS_CELL/vlservers ||
		{ echo "the VL server or its address is gone"; ok=1; }
	! grep -q "$DNS_BOGUS" /proc/net/afs/$DNS_CELL/vlservers ||
		{ echo "the VL server took the refused payload's address"; ok=1; }
	[ $ok -eq 1 ] && cat /proc/net/afs/$DNS_CELL/vlservers
	dns_use || { echo "the volume cannot be mounted through the cell"; ok=1; }
	return $ok
}

# The cell is found, is not taken for an alias, and stays in use.
dns_found() {
	! grep -q " $DNS_CELL\$" /proc/net/afs/cells ||
		{ echo "$DNS_CELL is known before the upcall"; return 1; }
	# In both VLDB copies, and never looked up until the last check.
	volume_create dnsnew || return 1
	dns_vlserver $DNS_VL1 $DNS/vl1 || return 1
	dns_answer "$DNS_GOOD"
	afs-mount %$DNS_CELL:e2e $DNS_HELD && ls $DNS_HELD > /dev/null || return 1
	cat $DNS/log
	grep -q "^upcall [0-9]* afsdb:$DNS_CELL\$" $DNS/log || return 1
	! dmesg | grep "Cell $DNS_CELL is an alias" || return 1
	cat /proc/net/afs/cells
	[ "$(awk -v c=$DNS_CELL '$6 == c { print $2 }' /proc/net/afs/cells)" -ge 2 ] ||
		{ echo "the held mount does not keep $DNS_CELL in use"; return 1; }
	cat /proc/net/afs/$DNS_CELL/vlservers
	head -n 1 /proc/net/afs/$DNS_CELL/vlservers |
		grep -q '^# source SRV, status good$' &&
		dns_vl1_intact
}
check "dns: a cell no configuration names is found through the dns_resolver upcall" \
	dns_found

# dns_refused <reason> <payload>: after a good answer (so that each check
# starts from the same servers), the payload is refused, the kernel log
# says why, and the cell keeps its server.
dns_refused() {
	dns_refresh "$DNS_GOOD" || return 1
	dns_refresh "$2" || return 1
	ok=0
	wait_for 10 sh -c "dmesg | grep -q 'kAFS: $DNS_CELL: VL server list from DNS refused: $1 at byte'" ||
		{ echo "no \"refused: $1\" in the kernel log:"; dmesg | tail -n 5; ok=1; }
	dns_vl1_intact || ok=1
	return $ok
}
check "dns: a server record cut short is refused; the cell keeps its server" \
	dns_refused "short server record" \
	"$(dns_hdr 2)$DNS_BOGUS_VL1\\001\\000\\002\\000\\003"
check "dns: a server name running past the end is refused; the cell keeps its server" \
	dns_refused "server name past the end" \
	"$(dns_hdr 2)$DNS_BOGUS_VL1$(dns_server vl2.$DNS_CELL 0 1 0 40)"
check "dns: a truncated IPv4 address is refused; the cell keeps its server" \
	dns_refused "truncated IPv4 address" \
	"$(dns_hdr 2)$DNS_BOGUS_VL1$(dns_server vl2.$DNS_CELL 0 1 1)\\000\\177\\001"
check "dns: an unknown address type is refused; the cell keeps its server" \
	dns_refused "unknown address type" \
	"$(dns_hdr 2)$DNS_BOGUS_VL1$(dns_server vl2.$DNS_CELL 0 1 1)\\011\\177\\001\\000\\007"
check "dns: bytes after the last server are refused; the cell keeps its server" \
	dns_refused "trailing bytes" "$(dns_hdr 1)$DNS_BOGUS_VL1\\000\\000\\000"
check "dns: a server over TCP is refused; the cell keeps its server" \
	dns_refused "unsupported protocol" \
	"$(dns_hdr 2)$DNS_BOGUS_VL1$(dns_server vl2.$DNS_CELL 0 2 1)$(dns_ipv4 $DNS_VL2)"

# A second VL server, named by the next answer with a lower preference;
# the first is killed, and a volume kAFS has not looked up yet is mounted.
dns_second_vlserver() {
	dns_vlserver $DNS_VL2 $DNS/vl2 || return 1
	dns_refresh "$(dns_hdr 2)$(dns_server vl1.$DNS_CELL 0 1 1)$(dns_ipv4 $DNS_VL1)$(dns_server vl2.$DNS_CELL 10 1 1)$(dns_ipv4 $DNS_VL2)" ||
		return 1
	wait_for 10 grep -q " $DNS_VL2:7003\$" /proc/net/afs/$DNS_CELL/vlservers ||
		{ echo "the second VL server is not listed:"; cat /proc/net/afs/$DNS_CELL/vlservers; return 1; }
	cell_kill_vlserver $DNS/vl1 || return 1
	t0=$(uptime_s)
	dns_use dnsnew
	rc=$?
	echo "volume dnsnew: mount exit $rc after $(($(uptime_s) - t0)) s with vl1 dead"
	cat /proc/net/afs/$DNS_CELL/vlservers
	return $rc
}
check "dns: with its first VL server dead, a volume not looked up before is found through the second" \
	dns_second_vlserver

umount $DNS_HELD 2> /dev/null
for d in $DNS/vl1 $DNS/vl2; do
	[ ! -f $d/pid ] || cell_kill_vlserver $d > /dev/null 2>&1
done
rm -f /etc/request-key.conf
