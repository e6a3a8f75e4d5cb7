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

# 200 failed sends: a new cell a round (added through /proc, so kept), on
# the cell's own VL server, each round a mount that fails; then, with the
# sends let through, the cell's volume mounts and reads.
calls_failed_sends() {
	mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
	mkdir -p $CALLS
	echo afs_send_request_data > $FF/inject || return 1
	printf '%#x' -101 > $FF/afs_send_request_data/retval || return 1
	echo 100 > $FF/probability
	echo 1 > $FF/interval
	echo 0 > $FF/verbose
	echo 200 > $FF/times
	i=0
	while [ "$(cat $FF/times)" -gt 0 ] && [ $i -lt 300 ]; do
		i=$((i + 1))
		echo "add calls$i.example $ADDR" > /proc/net/afs/cells
		mount -t afs "%calls$i.example:root.cell" $CALLS 2> /dev/null &&
			umount $CALLS
	done
	left=$(cat $FF/times)
	echo > $FF/inject
	echo "$i rounds; injected send failures left: $left of 200"
	echo "cells listed: $(grep -c . /proc/net/afs/cells)"
	afs-mount "%$CELL:root.cell" $CALLS && ls $CALLS > /dev/null &&
		umount $CALLS || return 1
	[ "$left" -eq 0 ]
}

check "calls: 200 request sends failed, probes among them: no oops, the cell usable" \
	calls_failed_sends
