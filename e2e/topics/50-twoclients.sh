# SPDX-License-Identifier: GPL-2.0
#
# Two clients: kAFS in the root network namespace (A, on /afs) and kAFS in a
# second network and mount namespace (B, on /mnt/tc), on the same volume.
# Each namespace is joined to the root one by a veth pair.  A namespace
# keeps its loopback down and reaches the cell's 127.1.0.1 through its veth
# (route_localnet on both ends), so that the kafs.rootcell cell that every
# new namespace gets works there too, and the fileserver, answering from
# 127.1.0.1, is found by the address the VLDB gives.  Namespace N's client is
# 10.99.0.N; the fileserver grants it what it grants A (pts).
#
# A change by one client reaches the other through a callback break: no
# check drops caches.  A namespace is deleted by killing the process that
# holds it; its veth's root end goes away only when the namespace's exit
# has run past kAFS's, so that is what "deleted" waits for.
#
# Checks run "sh /tmp/tc.sh <function> ...": run_check executes its command
# under timeout(1), which cannot run a shell function itself.

cat > /tmp/tc.sh <<'EOF'
# The two-client topic's functions (e2e/topics/50-twoclients.sh).
. /e2e/lib/tap.sh
. /e2e/lib/trace.sh
. /e2e/lib/leaks.sh
CELL=test.example
ADDR=127.1.0.1
HOST=afs.$CELL
AFS=/afs

# tc_now: centiseconds since boot.
tc_now() {
	read -r up _ < /proc/uptime
	f=${up#*.}
	echo $(( ${up%.*} * 100 + ${f#0} ))
}

# tc_pid <ns>: the process holding namespace <ns>.
tc_pid() { cat /tmp/tc-ns-$1.pid; }

# tc_in <ns> <command...>: run in namespace <ns>'s network and mount
# namespaces.
tc_in() {
	ns=$1
	shift
	nsenter -t "$(tc_pid $ns)" -n -m "$@"
}

# tc_ns_create <ns> <n>: a network and mount namespace held by a sleeping
# process, client address 10.99.0.<n>, veth tc<ns> in the root namespace.
tc_ns_create() {
	ns=$1 n=$2
	unshare -m -n sleep 100000 > /dev/null 2>&1 &
	echo $! > /tmp/tc-ns-$ns.pid
	i=0
	while [ "$(readlink /proc/$!/ns/net)" = "$(readlink /proc/self/ns/net)" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "namespace $ns: not created"; return 1; }
		usleep 20000
	done
	ip link add name tc$ns type veth || return 1
	peer=$(ip -o link | sed -n "s/^[0-9]*: \(veth[0-9]*\)@tc$ns:.*/\1/p")
	[ -n "$peer" ] || { echo "no peer for tc$ns"; ip -o link; return 1; }
	ip link set dev "$peer" netns "$(tc_pid $ns)" || return 1
	echo 1 > /proc/sys/net/ipv4/conf/tc$ns/route_localnet
	ip link set tc$ns up
	ip route add 10.99.0.$n/32 dev tc$ns src $ADDR || return 1
	tc_in $ns sh -c "
		ip link set $peer name eth0 &&
		echo 1 > /proc/sys/net/ipv4/conf/eth0/route_localnet &&
		ip addr add 10.99.0.$n/32 dev eth0 && ip link set eth0 up &&
		ip route add $ADDR/32 dev eth0" || return 1
	tc_in $ns mkdir -p /mnt/tc
}

# tc_ns_delete <ns> [<centiseconds>]: kill its processes, then wait until
# the namespace's exit has removed its veth (20 s unless told).
tc_ns_delete() {
	ns=$1 limit=${2:-2000}
	pid=$(tc_pid $ns)
	netns=$(readlink /proc/$pid/ns/net)
	for p in /proc/[0-9]*; do
		[ "$(readlink $p/ns/net 2>/dev/null)" = "$netns" ] &&
			kill -9 "${p#/proc/}" 2>/dev/null
	done
	t0=$(tc_now)
	while ip link show tc$ns > /dev/null 2>&1; do
		if [ $(( $(tc_now) - t0 )) -gt "$limit" ]; then
			echo "namespace $ns not gone after $limit cs: its exit hangs"
			for p in /proc/[0-9]*; do
				[ "$(cut -d' ' -f3 $p/stat)" = D ] &&
					echo "D: $(cat $p/comm) in $(cat $p/wchan)"
			done
			return 1
		fi
		usleep 100000
	done
	echo "namespace $ns gone in $(( $(tc_now) - t0 ))0 ms"
	rm -f /tmp/tc-ns-$ns.pid
}

# tc_kernel_quiet: no hung task and no record the purge could not collect
# since the topic began (an earlier topic's report is that topic's).
tc_kernel_quiet() {
	! dmesg | sed -n '/e2e: topic twoclients begins/,$p' |
		grep -E "blocked for more than|Can't purge"
}

# tc_within <centiseconds> <command...>: retry until it succeeds.
tc_within() {
	limit=$1
	shift
	t0=$(tc_now)
	until "$@" > /tmp/tc-within.out 2>&1; do
		if [ $(( $(tc_now) - t0 )) -gt "$limit" ]; then
			echo "not within $limit cs:"
			cat /tmp/tc-within.out
			return 1
		fi
		usleep 50000
	done
	echo "within $(( $(tc_now) - t0 )) cs"
}

# tc_is <ns|a> <file> <text>: the file reads as <text> in that client.
tc_is() {
	if [ "$1" = a ]; then
		printf '%s' "$3" | cmp - "$2"
	else
		tc_in "$1" sh -c "printf '%s' '$3' | cmp - '$2'"
	fi
}

# tc_see <writer> <wdir> <reader> <rdir> <name>: the reader caches the
# file, the writer changes it, the reader sees the change within 10 s.
tc_see() {
	w=$1 wd=$2 r=$3 rd=$4 f=$5
	tc_is "$r" "$rd/$f" "old $f" || { echo "$r does not see the old $f"; return 1; }
	if [ "$w" = a ]; then
		printf 'new %s' "$f" > "$wd/$f"
	else
		tc_in "$w" sh -c "printf 'new %s' '$f' > '$wd/$f'"
	fi || return 1
	tc_within 1000 tc_is "$r" "$rd/$f" "new $f"
}

# tc_mmap_sees: B maps the file shared, A changes it, B sees the change
# through the mapping within 10 s.
tc_mmap_sees() {
	rm -f /tmp/tc-mapped
	tc_in b mmap-watch /mnt/tc/tc/mapped 100 CHANGED 10 /tmp/tc-mapped \
		> /tmp/tc-watch.out 2>&1 &
	watch=$!
	tc_within 500 test -e /tmp/tc-mapped || { kill $watch; return 1; }
	printf CHANGED | dd of=/afs/tc/mapped bs=1 seek=100 conv=notrunc 2> /dev/null
	wait $watch
	rc=$?
	cat /tmp/tc-watch.out
	return $rc
}

# tc_names_seen: A renames one file and unlinks another; B's readdir and
# stat show both within 10 s.
tc_names_b() {
	tc_in b sh -c "ls /mnt/tc/tc/names | tr '\n' ' '; echo;
		[ ! -e /mnt/tc/tc/names/x ] && [ -f /mnt/tc/tc/names/y ] &&
		[ ! -e /mnt/tc/tc/names/z ] &&
		[ \"\$(ls /mnt/tc/tc/names | tr '\n' ' ')\" = 'keep y ' ]"
}
tc_names_seen() {
	tc_in b sh -c "ls -l /mnt/tc/tc/names && stat /mnt/tc/tc/names/x /mnt/tc/tc/names/z" \
		> /dev/null || return 1
	mv /afs/tc/names/x /afs/tc/names/y && rm /afs/tc/names/z || return 1
	tc_within 1000 tc_names_b
}

# tc_fs_answers: the fileserver answers the volserver and lists e2e on-line.
tc_fs_answers() {
	vos examine e2e -noauth | grep -q On-line
}

# tc_restart: both clients cache a file; the fileserver restarts; each
# client calls it (the server then resets the client's callback state);
# B changes the file, and A sees the change within 10 s; then the other way.
# Once in several full runs B went on reading its own data (suspected: a
# reset or a break B never applied, or one the server delayed); the kAFS
# callback events of a failed run go to the console.
tc_cb_events="afs_cb_call afs_cm_no_server afs_cm_no_server_u afs_cb_break afs_cb_miss"
tc_restart() {
	tc_is a /afs/tc/restart "old restart" && tc_is b /mnt/tc/tc/restart "old restart" ||
		{ echo "the clients do not see the file before the restart"; return 1; }
	# shellcheck disable=SC2086
	trace_on $tc_cb_events
	tc_restart_sees
	rc=$?
	# shellcheck disable=SC2086
	trace_off $tc_cb_events
	[ $rc -eq 0 ] || grep ' afs_c[bm]_' $T/trace > /dev/console
	return $rc
}

tc_restart_sees() {
	bos restart $HOST fs -noauth || return 1
	wait_for 60 tc_fs_answers || { echo "the fileserver is not back"; return 1; }
	echo a > /afs/tc/after-a || { echo "A cannot write after the restart"; return 1; }
	tc_in b sh -c "echo b > /mnt/tc/tc/after-b" ||
		{ echo "B cannot write after the restart"; return 1; }
	tc_in b sh -c "printf 'B restart' > /mnt/tc/tc/restart" || return 1
	tc_within 1000 tc_is a /afs/tc/restart "B restart" ||
		{ echo "A reads '$(cat /afs/tc/restart)'"; return 1; }
	printf 'A restart' > /afs/tc/restart || return 1
	tc_within 1000 tc_is b /mnt/tc/tc/restart "A restart" ||
		{ echo "B reads '$(tc_in b cat /mnt/tc/tc/restart)'"; return 1; }
}

# tc_reset_once: after the fileserver reset A's callback state (the restart
# check), A's first open of a file it has cached breaks the promise and
# fetches the status; the promise that comes back is good until the next
# reset or break: 20 more opens fetch no status at all.
tc_reset_once() {
	cat /afs/tc/restart > /dev/null || return 1
	: > /afs/tc/reset-control || return 1
	trace_on afs_make_fs_call
	i=0
	while [ $i -lt 20 ] && cat /afs/tc/restart > /dev/null; do
		i=$((i + 1))
	done
	n=$(grep -c ' FS.FetchStatus' $T/trace)
	# The control: a call made now is in the trace, so an empty one is not
	# a pass (afs_make_fs_call traces calls on a vnode; a create is
	# afs_make_fs_call1's).
	chmod 600 /afs/tc/reset-control
	trace_off afs_make_fs_call
	rm -f /afs/tc/reset-control
	echo "measured: $i opens of a cached file, $n status fetches"
	[ $i -eq 20 ] || { echo "open $((i + 1)) failed"; return 1; }
	grep -q ' FS.StoreStatus' $T/trace ||
		{ echo "the control's FS.StoreStatus is not in the trace"; return 1; }
	[ "$n" -eq 0 ]
}

# tc_alias_sees: A also mounts the volume through a second name for the
# cell (one server record per cell, sharing the server's UUID); B changes a
# file; A sees the change through both names within 10 s.
tc_alias_sees() {
	echo "add alias.example $ADDR" > /proc/net/afs/cells || return 1
	mkdir -p /mnt/alias
	afs-mount %alias.example:e2e /mnt/alias || return 1
	tc_is a /mnt/alias/tc/alias "old alias" && tc_is a $AFS/tc/alias "old alias" &&
	tc_is b /mnt/tc/tc/alias "old alias" || { umount /mnt/alias; return 1; }
	tc_in b sh -c "printf 'new alias' > /mnt/tc/tc/alias"
	rc=0
	tc_within 1000 tc_is a $AFS/tc/alias "new alias" || rc=1
	tc_within 1000 tc_is a /mnt/alias/tc/alias "new alias" || rc=1
	cat /proc/net/afs/servers
	umount /mnt/alias
	return $rc
}

# tc_cells_apart: each namespace lists its own cells only.
tc_cells_apart() {
	tc_in b sh -c "echo 'add onlyb.example 10.99.9.9' > /proc/net/afs/cells" || return 1
	echo 'add onlya.example 10.99.9.8' > /proc/net/afs/cells || return 1
	echo "A:"; cat /proc/net/afs/cells
	echo "B:"; tc_in b cat /proc/net/afs/cells
	tc_in b grep -q onlyb.example /proc/net/afs/cells &&
	tc_in b grep -q "$CELL" /proc/net/afs/cells &&
	! tc_in b grep -q onlya.example /proc/net/afs/cells &&
	! grep -q onlyb.example /proc/net/afs/cells
}

# tc_cm_port: B's cache manager is on UDP 7001 (0x1B59) of its own
# namespace, as A's is on the root one's.
tc_cm_port() {
	tc_in b cat /proc/net/udp6 /proc/net/udp
	tc_in b grep -q ':1B59 ' /proc/net/udp6 && grep -q ':1B59 ' /proc/net/udp6
}

# tc_round <i>: create a namespace, mount, use, delete.
tc_round() {
	i=$1
	tc_ns_create l 4 || return 1
	tc_in l afs-mount %$CELL:e2e /mnt/tc || return 1
	tc_in l sh -c "printf 'round $i' > /mnt/tc/tc/round &&
		[ \"\$(cat /mnt/tc/tc/round)\" = 'round $i' ] &&
		[ \"\$(cat /mnt/tc/tc/shared)\" = shared ]" || return 1
	tc_ns_delete l > /tmp/tc-round.out || { cat /tmp/tc-round.out; return 1; }
	tc_is a /afs/tc/round "round $i" || { echo "A does not see round $i"; return 1; }
}

# tc_rounds <n>: <n> rounds; say how long each took.
tc_rounds() {
	printf shared > /afs/tc/shared || return 1
	r=1
	while [ $r -le "$1" ]; do
		t0=$(tc_now)
		tc_round $r || { echo "round $r failed"; return 1; }
		echo "round $r: $(( $(tc_now) - t0 ))0 ms"
		r=$((r + 1))
	done
	tc_kernel_quiet
}

# tc_parallel: eight volumes mounted at once in a fresh namespace, each
# read for the name it holds, then the namespace deleted.
tc_parallel() {
	tc_ns_create c 3 || return 1
	pids=
	for v in 0 1 2 3 4 5 6 7; do
		tc_in c mkdir -p /mnt/v$v
		tc_in c afs-mount %$CELL:tc$v /mnt/v$v &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do
		wait $p || { echo "a parallel mount failed"; rc=1; }
	done
	for v in 0 1 2 3 4 5 6 7; do
		[ $rc = 0 ] || break
		name=$(tc_in c cat /mnt/v$v/name) || { echo "tc$v cannot be read"; rc=1; }
		[ "$name" = tc$v ] || { echo "/mnt/v$v holds volume $name"; rc=1; }
	done
	[ $rc = 0 ] || { tc_ns_delete c; return 1; }
	tc_in c cat /proc/net/afs/servers
	tc_ns_delete c && tc_kernel_quiet
}

# tc_unacked: a peer calls the cache manager of namespace U and never
# acknowledges the reply (rxrpc would give up on the call after 20 s).  The
# namespace's exit ends such a call rather than wait for it: U is gone
# within 5 s.
tc_unacked() {
	tc_ns_create u 5 || return 1
	rx-noack 10.99.0.5 7001 40 > /tmp/tc-noack.out 2>&1 &
	noack=$!
	tc_within 1000 grep -q reply /tmp/tc-noack.out ||
		{ cat /tmp/tc-noack.out; kill $noack; return 1; }
	tc_ns_delete u 500
	rc=$?
	kill $noack
	[ $rc = 0 ] && tc_kernel_quiet
}

# A check's command: "sh /tmp/tc.sh <function> <args>".
[ $# -eq 0 ] || "$@"
EOF
TC="sh /tmp/tc.sh"

# Setup: the clients' addresses may use the cell as A does; eight volumes
# for the parallel mounts; namespace B.
twoclients_setup() {
	for n in 2 3 4; do
		pts createuser -name 10.99.0.$n -noauth > /dev/null &&
		pts adduser -user 10.99.0.$n -group system:administrators -noauth ||
			return 1
	done
	# Each volume holds its own name, for the parallel mounts to be told
	# apart.
	mkdir -p /mnt/tcv
	for v in 0 1 2 3 4 5 6 7; do
		volume_create tc$v && afs-mount %$CELL:tc$v /mnt/tcv &&
		printf tc$v > /mnt/tcv/name && umount /mnt/tcv || return 1
	done
	# A namespace exit that never ends is reported within the topic's
	# checks; the topic puts the kernel's own value back at its end.
	echo "e2e: topic twoclients begins" > /dev/kmsg
	cat /proc/sys/kernel/hung_task_timeout_secs > /tmp/tc-hung-timeout
	echo 10 > /proc/sys/kernel/hung_task_timeout_secs || return 1
	$TC tc_ns_create b 2
}
twoclients_setup > /tmp/tc-setup.out 2>&1 ||
	{ cat /tmp/tc-setup.out; bail "twoclients: setup failed"; }

check "twoclients: A mounts %$CELL:e2e" afs-mount %$CELL:e2e $AFS
check "twoclients: B mounts the same volume in its own namespace" \
	$TC tc_in b afs-mount %$CELL:e2e /mnt/tc
check "twoclients: B's namespace reached the cell through its veth" \
	$TC tc_in b sh -c "grep -q '$CELL' /proc/net/afs/cells && ls /mnt/tc > /dev/null"
mkdir -p $AFS/tc/names && printf 'old ab' > $AFS/tc/ab && printf 'old ba' > $AFS/tc/ba &&
	: > $AFS/tc/names/keep && : > $AFS/tc/names/x && : > $AFS/tc/names/z &&
	printf 'old restart' > $AFS/tc/restart && printf 'old alias' > $AFS/tc/alias &&
	dd if=/dev/zero of=$AFS/tc/mapped bs=4096 count=1 2> /dev/null
check "twoclients: a write in A is read in B within 10 s, no cache dropped" \
	$TC tc_see a $AFS/tc b /mnt/tc/tc ab
check "twoclients: a write in B is read in A within 10 s, no cache dropped" \
	$TC tc_see b /mnt/tc/tc a $AFS/tc ba
check "twoclients: a file B maps shared shows A's change within 10 s" $TC tc_mmap_sees
check "twoclients: A's rename and unlink show in B's readdir and stat within 10 s" \
	$TC tc_names_seen
check "twoclients: a change by B shows in A through two names of the cell" $TC tc_alias_sees
check "twoclients: bos restart: both clients revalidate, no stale data" $TC tc_restart
check "twoclients: after the restart, 20 opens of a cached file fetch no status" \
	$TC tc_reset_once
check "twoclients: each namespace lists only its own cells" $TC tc_cells_apart
check "twoclients: B's cache manager has UDP port 7001 of its own namespace" $TC tc_cm_port
check "twoclients: deleting B's namespace completes, no hung task" $TC tc_ns_delete b
check "twoclients: A keeps working after B is gone" sh -c "
	printf 'after B' > $AFS/tc/afterb && [ \"\$(cat $AFS/tc/afterb)\" = 'after B' ] &&
	$TC tc_kernel_quiet"
check "twoclients: 20 rounds of namespace create, mount, use, delete" $TC tc_rounds 20
check "twoclients: 8 volumes mounted at once in a fresh namespace, then deleted" \
	$TC tc_parallel
check "twoclients: a namespace's exit ends a CM call whose reply is never acknowledged" \
	$TC tc_unacked
# On the debug kernel, once every namespace above is gone.
! have_kmemleak ||
	check "twoclients: kmemleak finds nothing of kAFS's or rxrpc's unfreed" $TC leaks_of_ours
check "twoclients: umount A" umount $AFS
cat /tmp/tc-hung-timeout > /proc/sys/kernel/hung_task_timeout_secs
