# SPDX-License-Identifier: GPL-2.0
#
# kAFS's tracepoints for the checks that read what the client did: a check
# turns on the events it reads, from an empty buffer, and turns them off
# again, keeping the buffer to read.

T=/sys/kernel/tracing

# trace_on <event>...: the named afs events on, from an empty buffer.
trace_on() {
	mount -t tracefs tracefs $T 2> /dev/null
	echo 0 > $T/tracing_on
	echo > $T/trace
	for e in "$@"; do
		echo 1 > $T/events/afs/$e/enable
	done
	echo 1 > $T/tracing_on
}

# trace_off <event>...: tracing stopped and the named events off; the
# buffer is kept.
trace_off() {
	echo 0 > $T/tracing_on
	for e in "$@"; do
		echo 0 > $T/events/afs/$e/enable
	done
}

# trace_timed_out [vnode]: the calls traced by afs_make_fs_call and
# afs_call_done that ended in a timeout, counted by operation; given a
# vnode number in hex, as the trace prints it (printf %06x), only the calls
# on that vnode.  A call rxrpc gives up on (6.1's net/rxrpc/call_event.c,
# abort "EXP") ends in ETIME, or in ECONNRESET if it had heard from the
# server and its connection has since had a later packet for another call.
# afs_call_done is traced wherever kAFS completes a call
# (afs_set_call_complete()), in the request phase or waiting for the reply.
trace_timed_out() {
	awk -v vnode="${1:-}" '
		/ afs_make_fs_call: / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^c=/)
					c = $i
				else if ($i ~ /^[0-9a-f]+:[0-9a-f]+:[0-9a-f]+$/)
					split($i, fid, ":")
			if (vnode == "" || fid[2] == vnode)
				op[c] = $NF
		}
		/ afs_call_done: / && / ret=-(62|104) / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^c=/ && $i in op)
					n[op[$i]]++
		}
		END { for (o in n) print n[o], o }' $T/trace
}

# trace_open_calls: the calls traced by afs_make_fs_call with no
# afs_call_done yet: when each was made (trace time), its fid and operation.
trace_open_calls() {
	awk '/ afs_make_fs_call: / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^c=/)
					open[$i] = $(i - 2) " " $(i + 1) " " $NF
		}
		/ afs_call_done: / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^c=/)
					delete open[$i]
		}
		END { for (c in open) print c, open[c] }' $T/trace
}

# trace_calls_on <vnode>: the calls traced by afs_make_fs_call on that vnode
# (hex, as trace_timed_out takes it) and how afs_call_done saw each end.
trace_calls_on() {
	awk -v vnode="$1" '
		/ afs_make_fs_call: / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^c=/)
					c = $i
				else if ($i ~ /^[0-9a-f]+:[0-9a-f]+:[0-9a-f]+$/)
					split($i, fid, ":")
			if (fid[2] == vnode) {
				mine[c] = 1
				print
			}
		}
		/ afs_call_done: / {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^c=/ && $i in mine)
					print
		}' $T/trace
}
