#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fail if a kernel console log holds a report from the kernel's checkers or
# any warning, bug or oops, whether or not the KUnit cases passed.
#
#	scripts/check-console.sh <console log>
#
# Prints each report's first line and the checker that made it.

set -uo pipefail

log=$1

# One pattern per checker; the label names the checker in the verdict.
checks=(
	'KASAN|BUG: KASAN:'
	'KFENCE|BUG: KFENCE:'
	'UBSAN|UBSAN:'
	'lockdep|WARNING: (possible circular locking|possible recursive locking|inconsistent lock state|held lock freed|lock held when returning|possible irq lock inversion|bad unlock balance|nested lock was not taken|bad contention|.*-safe -> .*-unsafe lock order|lock held while)'
	'lockdep|(INFO|BUG): (trying to register non-static key|lock|looking up invalid subclass|MAX_LOCKDEP)'
	'RCU|suspicious RCU usage'
	'RCU stall|rcu: INFO: rcu_[a-z]+ (self-)?detected stalls?|rcu_[a-z]+ kthread starved'
	'ODEBUG|ODEBUG:'
	'list debugging|list_(add|del) corruption|list_del corruption'
	'refcount|refcount_t:'
	'slub|BUG [^ ]+ \(.*\): '
	'atomic sleep|BUG: (sleeping function called from invalid context|scheduling while atomic)'
	'WARNING|WARNING: (CPU: |at )|-+\[ cut here \]-+'
	'BUG|BUG: |kernel BUG at'
	'oops|Oops:|Kernel panic|: [0-9a-f]{4} \[#[0-9]+\]'
	'general protection fault|general protection fault'
	'divide error|divide error: '
	'invalid opcode|invalid opcode: '
	'hung task|INFO: task .* blocked for more than'
)

found=0
for check in "${checks[@]}"; do
	label=${check%%|*}
	pattern=${check#*|}
	hits=$(grep -aE -- "$pattern" "$log" | tr -d '\r' | head -n 5)
	[ -n "$hits" ] || continue
	found=1
	while IFS= read -r hit; do
		echo "console: $label: $hit"
	done <<< "$hits"
done

if [ "$found" -ne 0 ]; then
	echo "console: the kernel reported problems; see $log" >&2
	exit 1
fi
exit 0
