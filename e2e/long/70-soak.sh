# SPDX-License-Identifier: GPL-2.0
#
# Soak: 200,000 operations of the exerciser (e2e/helpers/afs-exercise.c)
# against the cell, for make test-long on the debug kernel, where KASAN,
# lockdep and the object checkers watch the write path for far longer than
# the writes topic runs it: one process (5 seeds of 10,000 operations),
# four processes on their own files (5 x 4 x 2,500), two sharing a file
# with a sync() loop (5 x 2 x 5,000), and four with the fileserver stopped
# in each seed until a store's reply is lost (5 x 4 x 2,500, timed-out
# calls tried again).  Writeback runs during the writes (small
# dirty limits, as in the writes topic).  The time of each seed is printed
# per mode as figures (median and range).  e2e.soak_ops=N on the kernel
# command line (AFS_E2E_APPEND) makes every seed N operations instead of
# 10,000: a short run of the same checks; e2e.soak_modes=<mode,...> runs
# only those modes (single, multi, shared, stopped).

check "soak: mount %$CELL:e2e" afs-mount %$CELL:e2e $AFS
mkdir -p $AFS/soak
soak_ops=$(arg e2e.soak_ops)
: "${soak_ops:=10000}"
soak_modes=$(arg e2e.soak_modes)
: "${soak_modes:=single,multi,shared,stopped}"
for mode in $(echo "$soak_modes" | tr , ' '); do
	case $mode in
	single|multi|shared|stopped) ;;
	*) check "soak: e2e.soak_modes=$soak_modes names modes that exist" false ;;
	esac
done
soak_timeout=$CHECK_TIMEOUT
soak_taken=0
CHECK_TIMEOUT=3600
echo 65536 > /proc/sys/vm/dirty_background_bytes
echo 262144 > /proc/sys/vm/dirty_bytes

# soak_stopped <exerciser options...>: the exerciser, with the fileserver
# stopped from its 2nd second until a store of another file, begun then,
# has timed out (e2e/lib/stores.sh); that file's data must come out right.
soak_stopped() {
	f=$AFS/soak/lost
	head -c 262144 /dev/urandom > /tmp/soak-lost.src
	: > $f || return 1
	trace_on afs_make_fs_call afs_call_done
	afs-exercise -r "$@" > /tmp/soak-ex.out 2>&1 &
	ex=$!
	sleep 2
	lose_store_reply $f /tmp/soak-lost.src
	lost=$?
	wait $ex
	rc=$?
	trace_off afs_make_fs_call afs_call_done
	tail -n 20 /tmp/soak-ex.out
	cat /tmp/lost-write.out
	store_kept_intact $f /tmp/soak-lost.src || rc=1
	rm -f $f
	[ $rc -eq 0 ] && [ $lost -eq 0 ] && grep -Eq '^exit [03]$' /tmp/lost-write.out
}

# soak <mode> <seed> <command...>: one seed as a check, its time noted,
# and the kernel log's "vnode modified" lines of own stores counted and
# cleared (hours of a debug kernel's messages would wrap the log).
soak() {
	mode=$1 seed=$2
	shift 2
	case ",$soak_modes," in
	*",$mode,"*) ;;
	*) return 0 ;;
	esac
	t0=$(uptime_s)
	check "soak: $mode, seed $seed, $soak_ops operations" "$@"
	echo $(($(uptime_s) - t0)) >> /tmp/soak-$mode.times
	soak_taken=$((soak_taken + $(own_store_taken_for_change)))
	dmesg -c > /dev/null
}

# soak_figures <mode>: "median M s, range A-B s over N seeds".
soak_figures() {
	sort -n /tmp/soak-$1.times | awk '{ t[NR] = $1 }
		END { printf "median %s s, range %s-%s s over %d seeds\n",
		      NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2,
		      t[1], t[NR], NR }'
}

for seed in 101 102 103 104 105; do
	soak single $seed afs-exercise -m single -n $soak_ops -s $seed $AFS/soak
done
for seed in 111 112 113 114 115; do
	soak multi $seed afs-exercise -m multi -p 4 -n $((soak_ops / 4)) -s $seed $AFS/soak
done
for seed in 121 122 123 124 125; do
	soak shared $seed afs-exercise -m shared -p 2 -n $((soak_ops / 2)) -s $seed $AFS/soak
done
for seed in 131 132 133 134 135; do
	soak stopped $seed soak_stopped -m multi -p 4 -n $((soak_ops / 4)) -s $seed $AFS/soak
done
for mode in $(echo "$soak_modes" | tr , ' '); do
	tap "# figure: soak, $mode: $(soak_figures $mode)"
done

echo 0 > /proc/sys/vm/dirty_bytes
echo 0 > /proc/sys/vm/dirty_background_bytes
echo 20 > /proc/sys/vm/dirty_ratio
echo 10 > /proc/sys/vm/dirty_background_ratio
echo 3000 > /proc/sys/vm/dirty_expire_centisecs
CHECK_TIMEOUT=$soak_timeout
soak_own_stores_kept() {
	echo "own stores taken for another's change: $soak_taken"
	[ $soak_taken -eq 0 ]
}
check "soak: no own store taken for another's change" soak_own_stores_kept
! have_kmemleak ||
	check "soak: kmemleak finds nothing of kAFS's or rxrpc's unfreed" leaks_of_ours
check "soak: umount" umount $AFS
