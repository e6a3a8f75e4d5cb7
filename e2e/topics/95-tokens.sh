# SPDX-License-Identifier: GPL-2.0
#
# Tokens: the cell keyed from a Kerberos realm (e2e/lib/realm.sh), users
# alice and bob with tokens that kafs-client's aklog-kafs puts into their
# keyrings, and access lists that refuse.  kAFS calls with a user's rxkad
# token, the fileserver grants the rights the directory's list gives that
# user, and kAFS keeps each user's rights apart in its permit cache
# (fs-afs/security.c).
#
# The other topics run as an administrator: the client's address is in
# system:administrators (cell_start), which the fileserver grants to every
# caller from that address.  This topic takes the address out of that
# group, so it runs last.  The servers stay under NoAuth for the
# administration tools (NoAuth makes every caller of bos, vos and pts a
# superuser; the fileserver checks access lists whatever it says).

TOK=/tok
ALICE=1001
BOB=1002
mkdir -p $TOK

# tok_setup: the realm and users; a volume whose directory pub lets
# system:anyuser read and alice do anything; then the client's address out
# of system:administrators and the servers restarted, to read the key and
# forget what they granted that address.
tok_setup() {
	volume_create tokens && afs-mount %$CELL:tokens $TOK &&
	mkdir $TOK/pub && echo hello > $TOK/pub/readme || return 1
	realm_start && realm_user alice $ALICE && realm_user bob $BOB || return 1
	afs-acl $TOK system:administrators rlidwka system:anyuser rl &&
	afs-acl $TOK/pub system:administrators rlidwka system:anyuser rl \
		alice rlidwka || return 1
	pts removeuser -user $ADDR -group system:administrators -noauth &&
	bos restart $HOST -all -noauth || return 1
	# The ptserver too: a fileserver that cannot ask it for a user's
	# groups grants that user system:anyuser's rights alone.
	wait_for 60 vos listvldb -noauth &&
	wait_for 60 pts examine alice -noauth || return 1
	# A new superblock: no rights cached while the address was an
	# administrator.
	umount $TOK && wait_for 60 afs-mount %$CELL:tokens $TOK &&
	wait_for 60 cat $TOK/pub/readme
}

# tok_refused <user|-> <shell command>: the command, as <user> (- for the
# guest's root, which has no token), fails with EACCES.
tok_refused() {
	if [ "$1" = - ]; then
		sh -c "$2" > /tmp/tok.out 2>&1 && { echo "allowed: $2"; return 1; }
	else
		as_user "$1" "$2" > /tmp/tok.out 2>&1 && { echo "allowed: $2"; return 1; }
	fi
	cat /tmp/tok.out
	grep -q "Permission denied" /tmp/tok.out
}

# tok_has_token <user>: aklog-kafs gave <user> an rxrpc key for the cell.
tok_has_token() {
	realm_token "$1" || return 1
	as_user "$1" "keyctl show @us" | tee /tmp/tok.keys | grep -q "rxrpc: afs@$CELL" ||
		{ cat /tmp/tok.keys; return 1; }
}

# tok_turns <rounds>: alice appends to her file and bob, who may only
# read, is refused and reads, in turn: each gets their own rights.
tok_turns() {
	i=0
	while [ $i -lt "$1" ]; do
		i=$((i + 1))
		as_user alice "echo $i >> $TOK/pub/alice" ||
			{ echo "round $i: alice refused"; return 1; }
		tok_refused bob "echo $i >> $TOK/pub/alice" > /dev/null ||
			{ echo "round $i: bob not refused"; return 1; }
		as_user bob "tail -n 1 $TOK/pub/alice" | grep -qx $i ||
			{ echo "round $i: bob did not read alice's line"; return 1; }
	done
}

# The grant and the revocation are changes kAFS would otherwise judge from
# bob's cached rights alone, on the first try after the change: a create
# in pub while they say bob may not insert, a listing of priv (cached)
# while they say bob may look up.  The create's owner shows that bob
# called with his own token.
tok_grant() {
	as_user alice "afs-acl $TOK/pub system:administrators rlidwka \
		system:anyuser rl alice rlidwka bob rliw" &&
	as_user bob "echo bob > $TOK/pub/bob" &&
	[ "$(stat -c %u $TOK/pub/bob)" = $BOB ]
}

tok_priv() {
	as_user alice "mkdir $TOK/pub/priv && echo secret > $TOK/pub/priv/s &&
		afs-acl $TOK/pub/priv alice rlidwka bob rl" &&
	as_user bob "ls $TOK/pub/priv" | grep -qx s &&
	tok_refused - "ls $TOK/pub/priv"
}

tok_revoke() {
	as_user alice "afs-acl $TOK/pub/priv alice rlidwka" &&
	tok_refused bob "ls $TOK/pub/priv" &&
	as_user bob "ls $TOK/pub" | grep -qx bob
}

# tok_kept: a write of alice's not yet stored when her list stops letting
# her write (she keeps r, l, d, k and a; without w or i the fileserver
# refuses even the file's owner).  The store is refused for the only key
# that may make it, hers: fsync (busybox "sync FILE", read-only) reports
# EACCES and the data stays dirty; once the list lets her write again,
# fsync stores it.  The file is open until then, as a close would store.
# A new superblock reads what the fileserver holds.
tok_kept() {
	acl="system:administrators rlidwka system:anyuser rl bob rliw"
	f=$TOK/pub/kept
	as_user alice "echo first > $f" || return 1
	as_user alice "exec 3>> $f && echo second >&3 &&
		afs-acl $TOK/pub $acl alice rldka &&
		{ sync $f && echo 'fsync: 0 under rldka'; true; } &&
		afs-acl $TOK/pub $acl alice rlidwka &&
		sync $f && echo 'fsync: 0 under rlidwka'" > /tmp/tok.out 2>&1
	rc=$?
	echo "as alice: exit $rc"
	cat /tmp/tok.out
	[ $rc -eq 0 ] && grep -q "^sync: .*Permission denied" /tmp/tok.out &&
		! grep -q "under rldka" /tmp/tok.out &&
		grep -q "under rlidwka" /tmp/tok.out || return 1
	umount $TOK && afs-mount %$CELL:tokens $TOK || return 1
	printf 'first\nsecond\n' | cmp - $f
}

check "tokens: a KDC for $REALM, the servers keyed from it, users alice and bob" tok_setup
check "tokens: without a token, system:anyuser rl reads" grep -qx hello $TOK/pub/readme
check "tokens: without a token, a create is refused (EACCES)" tok_refused - "echo x > $TOK/pub/anon"
check "tokens: aklog-kafs gives alice a token for $CELL" tok_has_token alice
check "tokens: alice's create succeeds, and the file is hers (owner $ALICE)" sh -c "
	su -s /bin/sh alice -c 'echo 0 > $TOK/pub/alice' &&
	[ \$(stat -c %u $TOK/pub/alice) = $ALICE ]"
check "tokens: aklog-kafs gives bob a token for $CELL" tok_has_token bob
check "tokens: bob, whom the list only lets read, may not write alice's file (EACCES)" \
	tok_refused bob "echo bob >> $TOK/pub/alice"
check "tokens: alice writes and bob is refused and reads, 30 times in turn" tok_turns 30
check "tokens: alice lets bob insert into pub: bob's create succeeds at once, as bob" tok_grant
check "tokens: alice's directory priv, which bob may list and root may not" tok_priv
check "tokens: alice takes bob off priv's list: bob's listing is refused at once" tok_revoke
check "tokens: a store refused for alice's only key: fsync says EACCES, the data is kept and stored later" \
	tok_kept
