# SPDX-License-Identifier: GPL-2.0
#
# TAP for the end-to-end guest, sourced by /init and shared by every topic.
# Lines go to /dev/ttyS1 (the host's results/e2e.tap) and to the console.
# Each check runs under a time limit and says how long it took, so that a
# hang costs one check, not the run, and slow behaviour shows in the TAP.

TAP=${TAP:-/dev/ttyS1}
N=0
CHECK_TIMEOUT=${CHECK_TIMEOUT:-300}
CHECK_OUT=${CHECK_OUT:-/tmp/check.out}

say() { echo "e2e: $*"; }

# Seconds since boot: a check's duration holds when a topic moves the clock.
uptime_s() { cut -d. -f1 /proc/uptime; }
tap() { echo "$*" > "$TAP"; echo "$*"; }

# The first lines of a failed check's output, as TAP diagnostics.
tap_diag() {
	sed 's/^/# /' "$1" | head -n "${2:-20}" > "$TAP"
	sed 's/^/# /' "$1" | head -n "${2:-20}"
}

# The guest's busybox has ps but no pgrep or pkill.
# running <ERE>: print the processes whose command line, from its start,
# matches; false if there are none.  (awk -v takes backslashes as escapes:
# write [.] rather than \.)
running() {
	ps -o pid,args | awk -v re="^ *[0-9]+ $1" '
		$0 ~ re { print; n++ } END { exit !n }'
}

# descendants <pid>...: those processes and all their descendants, from
# one look at the process table.
descendants() {
	ps -o pid,ppid | awk -v roots="$*" '
		NR > 1 { parent[$1] = $2 }
		END {
			n = split(roots, r, " ")
			for (i = 1; i <= n; i++)
				keep[r[i]] = 1
			more = 1
			while (more) {
				more = 0
				for (p in parent)
					if (!(p in keep) && (parent[p] in keep)) {
						keep[p] = 1
						more = 1
					}
			}
			for (p in keep)
				print p
		}'
}

# init_children: the processes whose parent is /init (pid 1): the
# topics' daemons, and any process orphaned since they started.
init_children() {
	ps -o pid,ppid | awk '$2 == 1 { printf "%s ", $1 }'
}

# kill_tree <keep> <pid>...: kill those processes and their descendants,
# and unless <keep> is "-", every child of /init not in <keep> (what they
# orphaned, or started as daemons).  All are stopped, and looked up again
# until no new one shows (a stopped process starts no more), then killed.
# A subshell: its variables are not the caller's.
kill_tree() (
	keep=" $1 " tree= last=x i=0
	shift
	while [ "$tree" != "$last" ] && [ $i -lt 50 ]; do
		last=$tree
		orphans=
		[ "$keep" = " - " ] || for p in $(init_children); do
			case "$keep" in
			*" $p "*) ;;
			*) orphans="$orphans $p" ;;
			esac
		done
		tree=$(descendants "$@" $last $orphans | sort -n | tr '\n' ' ')
		kill -STOP $tree 2>/dev/null
		i=$((i + 1))
	done
	kill -KILL $tree 2>/dev/null
)

# run_check <directive> <description> <command...>: one TAP line.  The
# command (a program or a shell function) gets CHECK_TIMEOUT seconds, then
# it is killed with its descendants and with every process orphaned to
# /init meanwhile (a daemon the check started too); its output becomes
# diagnostics if it fails.
run_check() {
	directive=$1 desc=$2
	shift 2
	N=$((N + 1))
	check_start=$(uptime_s)
	before=" $(init_children)"
	( "$@" ) > "$CHECK_OUT" 2>&1 &
	pid=$!
	(
		trap 'kill $s 2>/dev/null; exit 0' TERM
		sleep "$CHECK_TIMEOUT" & s=$!
		wait $s
		trap '' TERM	# the check may end now: finish the kill anyway
		echo "killed after $CHECK_TIMEOUT s; blocked tasks on the console" >> "$CHECK_OUT"
		echo 7 > /proc/sys/kernel/printk
		echo w > /proc/sysrq-trigger
		read -r self _ < /proc/self/stat	# this watchdog's pid
		kill_tree "$before $self" $pid
	) 2>/dev/null &
	watchdog=$!
	wait $pid
	rc=$?
	kill $watchdog 2>/dev/null
	wait $watchdog 2>/dev/null
	if [ $rc -eq 0 ]; then
		tap "ok $N - $desc [$(($(uptime_s) - check_start)) s]$directive"
	else
		tap "not ok $N - $desc [$(($(uptime_s) - check_start)) s]$directive"
		tap_diag "$CHECK_OUT"
	fi
}

# check <description> <command...>
check() { run_check "" "$@"; }

# todo <description> <reason> <command...>: a check of a known defect,
# reported but not a failure of the run.
todo() {
	desc=$1 reason=$2
	shift 2
	run_check " # TODO $reason" "$desc" "$@"
}

# skip <description> <reason>: a check that cannot run here.
skip() {
	N=$((N + 1))
	tap "ok $N - $1 # SKIP $2"
}

# wait_for <seconds> <command...>: poll once a second until the command
# succeeds; print its last output and fail at the limit.
wait_for() {
	limit=$1
	shift
	i=0
	while ! "$@" > /tmp/wait.out 2>&1; do
		i=$((i + 1))
		[ $i -ge "$limit" ] && { cat /tmp/wait.out; return 1; }
		sleep 1
	done
}

# The plan goes last, then the guest powers off.
finish() {
	tap "1..$N"
	sync
	reboot -f
	sleep 10
}

bail() { tap "Bail out! $*"; finish; }
