# SPDX-License-Identifier: GPL-2.0
#
# Calls: the call layer when rxrpc refuses to send a request.  The sends of
# a call's request are made to fail with fail_function on
# afs_send_request_data() (rxrpc.c; patch 0025, so not on stock 6.1), as a
# send that rxrpc refuses would.  A VL server's first use in a cell sends an
# asynchronous probe (VL.GetCapabilities), so a new cell each round makes
# one: 6.1 could complete such a call twice when its send failed, the second
# time with its rxrpc call gone (a NULL dereference in
# rxrpc_kernel_get_srtt() from afs_vlserver_probe_result()).  Any oops, KASAN
# or refcount report fails the run through the console check.

FF=/sys/kernel/debug/fail_function
CALLS=/mnt/calls

# calls_fail_sends <n>: the next <n> sends of a request fail.
calls_fail_sends() {
	mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
	echo afs_send_request_data > $FF/inject || return 1
	printf '%#x' -101 > $FF/afs_send_request_data/retval || return 1
	echo 100 > $FF/probability
	echo 1 > $FF/interval
	echo 0 > $FF/verbose
	echo "$1" > $FF/times
}

# calls_new_cells <tag> [<command prefix>...]: while injected failures are
# left (300 rounds at most), a new cell a round (added through /proc, so
# kept), on the cell's own VL server, each round a mount that fails; each
# command run under the prefix (nsenter, for another namespace).  Prints
# the failures left.
calls_new_cells() {
	tag=$1
	shift
	mkdir -p $CALLS
	i=0
	while [ "$(cat $FF/times)" -gt 0 ] && [ $i -lt 300 ]; do
		i=$((i + 1))
		"$@" sh -c "echo add $tag$i.example $ADDR > /proc/net/afs/cells"
		"$@" mount -t afs "%$tag$i.example:root.cell" $CALLS 2> /dev/null &&
			umount $CALLS
	done
	echo "$i rounds, $("$@" grep -c . /proc/net/afs/cells) cells listed" >&2
	cat $FF/times
}

# 200 failed sends; then, with the sends let through, the cell's volume
# mounts and reads.
calls_failed_sends() {
	calls_fail_sends 200 || return 1
	left=$(calls_new_cells calls)
	echo > $FF/inject
	echo "injected send failures left: $left of 200"
	afs-mount "%$CELL:root.cell" $CALLS && ls $CALLS > /dev/null &&
		umount $CALLS || return 1
	[ "$left" -eq 0 ]
}

# The same in a network namespace of its own, then the namespace deleted:
# its exit must end every cell and call kAFS had there.  A veth with one end
# in the namespace tells when the exit has run past kAFS's (the devices go
# after the modules' pernet exits), within 20 s.
calls_failed_sends_netns() {
	unshare -n sleep 100000 > /dev/null 2>&1 &
	holder=$!
	wait_for 5 sh -c "[ \"\$(readlink /proc/$holder/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" ||
		return 1
	ip link add name calls0 type veth || return 1
	peer=$(ip -o link | sed -n "s/^[0-9]*: \(veth[0-9]*\)@calls0:.*/\1/p")
	ip link set dev "$peer" netns $holder || return 1
	calls_fail_sends 200 || return 1
	nsenter -t $holder -n ip link set lo up
	left=$(calls_new_cells netns nsenter -t $holder -n)
	echo > $FF/inject
	echo "injected send failures left: $left of 200"
	kill -9 $holder
	t0=$(uptime_s)
	wait_for 20 sh -c "! ip link show calls0" ||
		{ echo "the namespace's exit did not end within 20 s"; return 1; }
	echo "the namespace's exit was over in $(($(uptime_s) - t0)) s"
	[ "$left" -eq 0 ]
}

check "calls: 200 request sends failed, probes among them: no oops, the cell usable" \
	calls_failed_sends
check "calls: 200 more in a namespace of its own, then its exit ends within 20 s" \
	calls_failed_sends_netns
