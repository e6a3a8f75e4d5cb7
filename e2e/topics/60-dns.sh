# SPDX-License-Identifier: GPL-2.0
#
# DNS: a cell that no configuration names is found through the
# dns_resolver upcall (/sbin/request-key runs our handler, which answers
# with a binary server list, include/uapi/linux/dns_resolver.h); a
# malformed answer is refused with a logged reason and leaves the cell's
# servers as they were (docs/dns_vl.md); and a cell whose first VL server is
# stopped carries on through its second.
#
# A cell asks again once its record expires: at least ten minutes after an
# answer (afs_cell_min_ttl), ten seconds after a refusal.  Rather than wait,
# the checks move the clock on, so this topic leaves it an hour or two
# ahead.  And it asks only while the cell is in use when its manager runs
# (afs_manage_cell(): active > 1): a use that is over by then, such as a
# mount that fails at once, leaves the lookup to the next use.  So a mount
# of the cell is held from the first check to the end of the topic.

DNS_CELL=dns.example
DNS_BOGUS=127.1.0.99	# nothing listens there
DNS_VL2=127.1.0.7	# the second VL server
DNS_MNT=/dns		# mounted for each use
DNS_HELD=/dns-held	# mounted for the whole topic
DNS=/tmp/dns
mkdir -p $DNS $DNS_MNT $DNS_HELD

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

# The payload, written as printf(1) escapes.
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

DNS_GOOD="$(dns_hdr 1)$(dns_server vl1.$DNS_CELL 0 1 1)$(dns_ipv4 $ADDR)"
# The first record of each malformed payload is whole and gives the cell's
# one VL server an address where nothing answers: a decoder that applies
# records before it has read the payload to its end loses the cell.
DNS_BOGUS_VL1="$(dns_server vl1.$DNS_CELL 0 1 1)$(dns_ipv4 $DNS_BOGUS)"

# dns_use: mount the cell's volume e2e, list it, unmount it.
dns_use() {
	afs-mount %$DNS_CELL:${1:-e2e} $DNS_MNT || return 1
	ls $DNS_MNT > /dev/null
	rc=$?
	umount $DNS_MNT
	return $rc
}

# dns_refresh: move the clock past the record's expiry, make a VL call
# (which starts the lookup; it goes on in the background) and wait until
# the handler has answered.
dns_refresh() {
	n=$(grep -c '^answered' $DNS/log)
	date -s "@$(($(date +%s) + 660))" > /dev/null
	dns_use > /dev/null 2>&1
	wait_for 30 sh -c "[ \$(grep -c '^answered' $DNS/log) -gt $n ]" ||
		{ echo "no upcall answered"; cat $DNS/log; return 1; }
	sleep 1
}

# dns_vl1_intact: the cell still has its VL server, at its address, and
# looks up volumes through it.
dns_vl1_intact() {
	ok=0
	grep -q "^vl1.$DNS_CELL " /proc/net/afs/$DNS_CELL/vlservers &&
		grep -q " $ADDR:7003\$" /proc/net/afs/$DNS_CELL/vlservers ||
		{ echo "the VL server or its address is gone"; ok=1; }
	! grep -q "$DNS_BOGUS" /proc/net/afs/$DNS_CELL/vlservers ||
		{ echo "the VL server took the refused payload's address"; ok=1; }
	[ $ok -eq 1 ] && cat /proc/net/afs/$DNS_CELL/vlservers
	dns_use || { echo "the volume cannot be mounted through the cell"; ok=1; }
	return $ok
}

dns_found() {
	! grep -q " $DNS_CELL\$" /proc/net/afs/cells ||
		{ echo "$DNS_CELL is known before the upcall"; return 1; }
	dns_answer "$DNS_GOOD"
	afs-mount %$DNS_CELL:e2e $DNS_HELD && ls $DNS_HELD > /dev/null || return 1
	cat $DNS/log
	grep -q "^upcall [0-9]* afsdb:$DNS_CELL\$" $DNS/log || return 1
	cat /proc/net/afs/$DNS_CELL/vlservers
	head -n 1 /proc/net/afs/$DNS_CELL/vlservers |
		grep -q '^# source SRV, status good$' &&
		dns_vl1_intact
}
check "dns: a cell no configuration names is found through the dns_resolver upcall" \
	dns_found

# dns_refused <reason> <payload>: the payload is refused, the kernel log
# says why, and the cell keeps its server.
dns_refused() {
	dns_answer "$2"
	dns_refresh || return 1
	ok=0
	dmesg | grep -q "kAFS: $DNS_CELL: VL server list from DNS refused: $1 at byte" ||
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

# A second VL server, named by the next answer with a lower preference, on
# a copy of the VLDB that holds a volume kAFS has not looked up yet; the
# first is stopped before the lookup.
dns_second_vlserver() {
	volume_create dnsnew || return 1
	cell_add_vlserver $DNS_VL2 /tmp/vl-dns || return 1
	dns_answer "$(dns_hdr 2)$(dns_server vl1.$DNS_CELL 0 1 1)$(dns_ipv4 $ADDR)$(dns_server vl2.$DNS_CELL 10 1 1)$(dns_ipv4 $DNS_VL2)"
	dns_refresh || return 1
	cat /proc/net/afs/$DNS_CELL/vlservers
	grep -q " $DNS_VL2:7003\$" /proc/net/afs/$DNS_CELL/vlservers ||
		{ echo "the second VL server is not listed"; return 1; }
	bos stop $HOST vlserver -wait -noauth || return 1
	t0=$(uptime_s)
	dns_use dnsnew
	rc=$?
	echo "volume dnsnew: mount exit $rc after $(($(uptime_s) - t0)) s with vl1 stopped"
	bos start $HOST vlserver -noauth
	wait_for 60 vos listvldb -noauth > /dev/null || echo "vl1 did not come back"
	cell_kill_vlserver /tmp/vl-dns
	return $rc
}
check "dns: with the first VL server stopped, a new volume is found through the second" \
	dns_second_vlserver

umount $DNS_HELD 2> /dev/null
