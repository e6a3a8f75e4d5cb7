#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and run the kAFS KUnit suites on one arch with kunit.py, in a build
# directory kept between runs so that a second run rebuilds only what changed.
#
#	scripts/kunit-run.sh <run name> <arch> [extra kconfig fragment...]
#
# Writes results/kunit-<name>.log (the whole console), .tap (the KTAP the
# kernel printed), .json (kunit.py --json), .txt (kunit.py's report),
# .summary (one line) and .bench (the benchmarks' figures).  Exits
# non-zero if the build fails, any case fails, a suite crashes or times out,
# no case ran, or the console shows a kernel warning or a checker's report.
# With AFS_KUNIT_BUILD_ONLY set, it only builds.
#
# With AFS_KUNIT_FAILSLAB=<interval>, it boots the same kernel for the
# failslab run instead (kunit/failslab.h): every <interval>th slab
# allocation of each case's task fails.  Cases may fail then; the run fails
# if a case crashes, the console shows a report, a suite logs no count of
# failures or none was injected, or fewer results came than expected-counts
# says the plain run has.  Its results are kunit-<name>-failslab.*, counted
# as one check.

set -euo pipefail

name=$1 arch=$2
shift 2
run=$name
kernel_args=()
if [ -n "${AFS_KUNIT_FAILSLAB:-}" ]; then
	[[ $AFS_KUNIT_FAILSLAB =~ ^[1-9][0-9]*$ ]] ||
		{ echo "kunit-run: AFS_KUNIT_FAILSLAB must be an interval, not '$AFS_KUNIT_FAILSLAB'" >&2; exit 2; }
	run=$name-failslab
	kernel_args=(--kernel_args="failslab=$AFS_KUNIT_FAILSLAB,100,0,0")
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${AFS_BUILD_DIR:-$repo/build}
results=${AFS_RESULTS_DIR:-$repo/results}
mkdir -p "$results"

log=$results/kunit-$run.log
tap=$results/kunit-$run.tap
json=$results/kunit-$run.json
summary=$results/kunit-$run.summary
build_log=$log.build
if [ -n "${AFS_KUNIT_BUILD_ONLY:-}" ]; then
	# Another run wants the kernel: leave this run's results alone.
	build_log=$results/kunit-$name.rebuild.log
	summary=$results/kunit-$name.rebuild.summary
else
	rm -f "$log" "$build_log" "$tap" "$json" "$summary" "$results/kunit-$run.txt" \
		"$results/kunit-$run.bench"
fi

fail() {
	echo "kunit-$run: $*" | tee "$summary" >&2
	exit 1
}

. "$repo/scripts/lib-lock.sh"
heavy_lock

tree=$("$repo/overlay.sh" | tail -n 1)
kunit=$tree/tools/testing/kunit/kunit.py

args=(--arch="$arch" --build_dir="$build/kunit-$name"
      --kunitconfig="$tree/fs/afs" --kunitconfig="$repo/kconfig/$arch.config")
for f in "$@"; do
	args+=(--kunitconfig="$repo/$f")
done
cross=
# Two CPUs where the machine has them, so that the concurrency cases really
# run in parallel; QEMU's sparc (sun4m) machine has one.
smp=(--qemu_args="-smp 2")
case $arch in
arm64)	cross=aarch64-linux-gnu- ;;
sparc)	cross=sparc64-linux-gnu- smp=() ;;
esac
[ -z "$cross" ] || args+=(--cross_compile="$cross")
# ccache, with its cache outside the repository and paths taken relative to
# the build directory, so that a second clone on this machine hits it too.
if command -v ccache > /dev/null; then
	export CCACHE_BASEDIR=$build
	args+=(--make_options="CC=ccache ${cross}gcc")
fi

echo "kunit-$name: building in $build/kunit-$name"
start=$(date +%s)
# kunit.py calls stty; with no terminal it complains, harmlessly.
if ! "$kunit" build "${args[@]}" --jobs="$(nproc)" > "$build_log" 2>&1 < /dev/null; then
	grep -E 'error|Error|ERROR' "$build_log" | head -n 20 >&2 || true
	tail -n 20 "$build_log" >&2
	fail "kunit.py build failed; see $build_log"
fi
built=$(date +%s)
if [ -n "${AFS_KUNIT_BUILD_ONLY:-}" ]; then
	echo "kunit-$name: built in $((built - start)) s"
	exit 0
fi
# A failing case makes exec exit non-zero; the parse below judges that.
"$kunit" exec "${args[@]}" --timeout="${AFS_KUNIT_TIMEOUT:-600}" "${smp[@]}" \
	"${kernel_args[@]}" --raw_output=all > "$log" 2>&1 < /dev/null || true
echo "kunit-$run: built in $((built - start)) s, ran in $(( $(date +%s) - built )) s"

# sparc's console ends every line with an empty one, which throws kunit.py's
# parser off after a failure's diagnostic: parse without empty lines.
parse() {
	sed '/^\r*$/d' "$log" | "$kunit" parse "$@"
}
parse --raw_output=kunit > "$tap"
parse_rc=0
parse --json="$json" > "$results/kunit-$run.txt" || parse_rc=$?
# The whole parse is in the .txt; show what did not pass.
[ -n "${AFS_KUNIT_FAILSLAB:-}" ] ||
	grep -vE '\[PASSED\]|^\[[0-9:]+\] =+ *$' "$results/kunit-$run.txt" || true
[ -s "$json" ] || fail "no results parsed from $log"

if [ -n "${AFS_KUNIT_FAILSLAB:-}" ]; then
	least=$(awk -v r="kunit-$name" '!/^#/ && $1 == r { print $2 }' "$repo/expected-counts")
	line=$(python3 "$repo/scripts/kunit-count.py" --failslab "$json" "$tap" \
		"interval $AFS_KUNIT_FAILSLAB" "${least:-1}") && ok=1 || ok=
	echo "kunit-$run: $line" > "$results/kunit-$run.bench"
	# KUnit's own warning when failslab fails the allocation it reports a
	# failed assertion with (lib/kunit/test.c, kunit_fail()) is the only
	# report allowed: each is cut from the copy the checker reads.
	awk '/-+\[ cut here \]-+/ { held = $0; next }
	     held != "" { if ($0 ~ /^Could not allocate stream to print failed assertion/)
			      skip = 1
			  else
			      print held
			  held = "" }
	     skip { if ($0 ~ /---\[ end trace/) skip = 0; next }
	     { print }' "$log" > "$log.checked"
	"$repo/scripts/check-console.sh" "$log.checked" ||
		fail "the kernel reported problems under failslab; see $log"
	[ -n "$ok" ] || fail "$line; see $log"
	echo "kunit-$run: 1 passed (no crash, report or hang; every suite that allocates met failures), 0 failed" |
		tee "$summary"
	cat "$results/kunit-$run.bench"
	exit 0
fi

line=$(python3 "$repo/scripts/kunit-count.py" "$json" "kunit-$run")
echo "$line" > "$summary"
python3 "$repo/scripts/kunit-count.py" --bench "$json" "$tap" "kunit-$run" \
	> "$results/kunit-$run.bench"
# One report goes into the summary line, which the end of make test's
# output repeats for a run that failed.
if ! problems=$("$repo/scripts/check-console.sh" "$log"); then
	echo "$problems"
	fail "the kernel reported problems, among them ${problems%%$'\n'*} ($line); see $log"
fi
[ "$parse_rc" -eq 0 ] || fail "a suite failed, crashed or timed out ($line); see $log"
python3 "$repo/scripts/kunit-count.py" --check "$json" ||
	fail "failed or ran nothing ($line)"
cat "$results/kunit-$run.bench"
echo "$line"
