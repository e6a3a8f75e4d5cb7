# SPDX-License-Identifier: GPL-2.0
#
# A Kerberos realm for the cell, sourced by /init: an MIT KDC on the cell's
# address, the principal afs/test.example whose key the servers get
# (asetkey, KeyFileExt), and users with keytabs, so a check takes a ticket
# without a password prompt.  The servers take a realm equal to the cell's
# name in capitals for their own (no krb.conf), and a ticket of
# alice@TEST.EXAMPLE for PTS user alice; aklog-kafs asks for
# afs/<cell>@<CELL> and derives rxkad's DES key from an AES session key
# itself (hmac(md5) through AF_ALG: kconfig/boot.config).

REALM=TEST.EXAMPLE
KDC_DIR=/var/lib/krb5kdc
AFS_KEYTAB=/etc/openafs/server/afs.keytab

# realm_start: the KDC up, afs/$CELL's key in the servers' KeyFileExt.  The
# servers read it when they start: bos restart them afterwards.
realm_start() {
	mkdir -p /etc/krb5kdc $KDC_DIR
	cat > /etc/krb5.conf <<-EOF
	[libdefaults]
		default_realm = $REALM
		dns_lookup_kdc = false
		dns_lookup_realm = false
		rdns = false
	[realms]
		$REALM = {
			kdc = $ADDR
		}
	EOF
	cat > /etc/krb5kdc/kdc.conf <<-EOF
	[kdcdefaults]
		kdc_ports = 88
		kdc_tcp_ports = 88
	[realms]
		$REALM = {
			database_name = $KDC_DIR/principal
			key_stash_file = /etc/krb5kdc/stash
			supported_enctypes = aes256-cts-hmac-sha1-96:normal
		}
	[logging]
		kdc = FILE:/var/log/krb5kdc.log
	EOF
	kdb5_util create -s -P e2e-master -r $REALM > /dev/null ||
		{ echo "kdb5_util create failed"; return 1; }
	kadmin.local -q "addprinc -randkey afs/$CELL" > /dev/null &&
	kadmin.local -q "ktadd -k $AFS_KEYTAB afs/$CELL" > /dev/null ||
		{ echo "no key for afs/$CELL"; return 1; }
	# ktadd gave the principal a new key: the keytab says its number.
	kvno=$(klist -k $AFS_KEYTAB | awk '$2 ~ /^afs\// { print $1; exit }')
	asetkey add rxkad_krb5 "$kvno" 18 $AFS_KEYTAB "afs/$CELL@$REALM" ||
		{ echo "asetkey failed"; return 1; }
	krb5kdc -P $KDC_DIR/pid || { echo "krb5kdc did not start"; return 1; }
	wait_for 10 env KRB5CCNAME=FILE:$KDC_DIR/check.cc \
		kinit -k -t $AFS_KEYTAB "afs/$CELL" ||
		{ echo "the KDC does not answer"; cat /var/log/krb5kdc.log; return 1; }
}

# realm_user <name> <id>: a local user and a PTS user of that name and id,
# and a principal with a keytab the user can read.
realm_user() {
	echo "$1:x:$2:$2::/tmp:/bin/sh" >> /etc/passwd
	echo "$1:x:$2:" >> /etc/group
	kadmin.local -q "addprinc -randkey $1" > /dev/null &&
	kadmin.local -q "ktadd -k /etc/krb5kdc/$1.keytab $1" > /dev/null ||
		{ echo "no principal $1"; return 1; }
	chown "$1" /etc/krb5kdc/$1.keytab
	pts createuser -name "$1" -id "$2" -noauth > /dev/null ||
		{ echo "no PTS user $1"; return 1; }
}

# as_user <name> <command>: the shell command as <name>.  Nothing here has
# a session keyring, so each user's keys go to and come from that user's
# own user-session keyring, which outlives the command: <name>'s token and
# no other.
as_user() { su -s /bin/sh "$1" -c "$2"; }

# realm_token <name> [lifetime]: a ticket for <name> and, by aklog-kafs, its
# rxkad token in <name>'s keyring.
realm_token() {
	as_user "$1" "kinit -k -t /etc/krb5kdc/$1.keytab ${2:+-l $2} $1 &&
		aklog-kafs $CELL"
}
