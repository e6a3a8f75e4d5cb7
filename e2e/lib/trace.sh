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
