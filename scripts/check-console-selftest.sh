#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Show that scripts/check-console.sh catches what it must: each report below,
# the first line of a real one, planted alone in a console log, must fail
# it, and a clean log must pass.  Leaves results/console-selftest.summary.
#
#	scripts/check-console-selftest.sh

set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
results=${AFS_RESULTS_DIR:-$repo/results}
mkdir -p "$results"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

reports=(
	'general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI'
	'divide error: 0000 [#1] PREEMPT SMP NOPTI'
	'invalid opcode: 0000 [#1] PREEMPT SMP NOPTI'
	'BUG: kernel NULL pointer dereference, address: 0000000000000008'
	'Oops: 0000 [#1] PREEMPT SMP NOPTI'
	'Kernel panic - not syncing: Fatal exception'
	'kernel BUG at fs/afs/rxrpc.c:123!'
	'WARNING: CPU: 1 PID: 647 at fs/inode.c:332 drop_nlink+0x20/0x30'
	'BUG: KASAN: slab-use-after-free in afs_put_server+0x1c/0x80'
	'BUG: KFENCE: use-after-free read in afs_vl_get_capabilities+0x10/0x20'
	'UBSAN: shift-out-of-bounds in fs/afs/addr_list.c:42:9'
	'rcu: INFO: rcu_preempt self-detected stall on CPU'
	'rcu: INFO: rcu_sched detected stalls on CPUs/tasks:'
	'rcu: rcu_preempt kthread starved for 10502 jiffies!'
	'WARNING: suspicious RCU usage'
	'WARNING: possible circular locking dependency detected'
	'WARNING: possible recursive locking detected'
	'WARNING: inconsistent lock state'
	'WARNING: possible irq lock inversion dependency detected'
	'WARNING: bad unlock balance detected!'
	'WARNING: held lock freed!'
	'WARNING: lock held when returning to user space!'
	'WARNING: nested lock was not taken'
	'WARNING: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected'
	'INFO: trying to register non-static key.'
	'BUG: MAX_LOCKDEP_ENTRIES too low!'
	'ODEBUG: free active (active state 0) object: 00000000b8e4e2a3 object type: timer_list'
	'list_add corruption. prev->next should be next (ffff888005e6e4a8)'
	'refcount_t: underflow; use-after-free.'
	'BUG: sleeping function called from invalid context at mm/slab.h:723'
	'BUG: scheduling while atomic: kworker/0:1/12/0x00000002'
	'INFO: task kworker/u4:2:53 blocked for more than 10 seconds.'
)

passed=0 failed=0
for r in "${reports[@]}"; do
	printf 'Booting\n[   12.345678] %s\nRunning\n' "$r" > "$log"
	if "$repo/scripts/check-console.sh" "$log" > /dev/null 2>&1; then
		echo "console-selftest: not caught: $r"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
done
printf 'Booting\n[    1.000000] kAFS: Red Hat AFS client v0.1 registering.\n' > "$log"
if "$repo/scripts/check-console.sh" "$log" > /dev/null 2>&1; then
	passed=$((passed + 1))
else
	echo "console-selftest: a clean log failed"
	failed=$((failed + 1))
fi
echo "console-selftest: $passed passed, $failed failed" |
	tee "$results/console-selftest.summary"
[ "$failed" -eq 0 ]
