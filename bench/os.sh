#!/usr/bin/env bash
# Cost of OS scheduling records (perf_event context switches): a 2-thread
# pipe ping-pong (about 4 context switches and 2 annotated events per round
# trip) and the OpenCL example, each untraced, recorded with --no-os and
# recorded with --os (the default). Configurations are interleaved; medians
# of wall time over REPS runs. Also: trace bytes per context switch and OS
# records lost. Not pass/fail.
#
#   bench/os.sh BUILD_DIR        (REPS=7 ROUNDS=100000 CL_ITERS=20 by default)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
reps=${REPS:-7}
rounds=${ROUNDS:-100000}
iters=${CL_ITERS:-20}
ht=$build/bin/hetrace
prog=$build/bin/os_prog
cl=$build/bin/cl_loop
for f in "$ht" "$prog"; do
	[ -x "$f" ] || { echo "os-bench: $f not built" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ht-os-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# wall NAME CONFIG CMD...: appends the wall time (ns) to $work/NAME.CONFIG
wall() {
	local name=$1 cfg=$2 t0 t1
	shift 2
	t0=$(date +%s%N)
	case $cfg in
	base) "$@" >/dev/null 2>&1 ;;
	noos) "$ht" record -q --no-os -o "$work/t.$name.$cfg" -- "$@" >/dev/null 2>&1 ;;
	os) "$ht" record -q --os -o "$work/t.$name.$cfg" -- "$@" >/dev/null 2>&1 ;;
	esac
	t1=$(date +%s%N)
	echo $((t1 - t0)) >>"$work/$name.$cfg"
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

keep() { # keep NAME CONFIG: the last recorded trace of a configuration, for sizes
	rm -rf "$work/keep.$1.$2"
	mv "$work/t.$1.$2" "$work/keep.$1.$2"
}

have_cl=0
[ -x "$cl" ] && "$cl" 2 >/dev/null 2>&1 && have_cl=1
for r in $(seq 1 "$reps"); do
	for c in base noos os; do
		wall pingpong $c "$prog" pingpong "$rounds" 1
		[ $c = base ] || keep pingpong $c
		if [ $have_cl = 1 ]; then
			wall opencl $c "$cl" "$iters"
			[ $c = base ] || keep opencl $c
		fi
	done
done

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? 100 * (a - b) / b : 0) }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.1f", a / 1e6 }'; }
bytes() { du -sb "$1" | cut -f1; }
# cpu_state intervals and lost OS records of a trace, from `hetrace report --format json`
os_counts() {
	"$ht" report "$1" --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)["os"]
print(sum(t["intervals"] for t in r["threads"]), r["lost"])'
}

printf "%-10s %12s %12s %12s %10s %10s\n" program untraced_ms no-os_ms os_ms noos_pct os_pct
pb=$(median "$work/pingpong.base") pn=$(median "$work/pingpong.noos") po=$(median "$work/pingpong.os")
printf "%-10s %12s %12s %12s %9s%% %9s%%\n" pingpong "$(ms "$pb")" "$(ms "$pn")" "$(ms "$po")" \
	"$(pct "$pn" "$pb")" "$(pct "$po" "$pn")"
ocl_os=n/a
if [ $have_cl = 1 ]; then
	ob=$(median "$work/opencl.base") on=$(median "$work/opencl.noos") oo=$(median "$work/opencl.os")
	ocl_os=$(pct "$oo" "$on")
	printf "%-10s %12s %12s %12s %9s%% %9s%%\n" "cl_loop $iters" "$(ms "$ob")" "$(ms "$on")" \
		"$(ms "$oo")" "$(pct "$on" "$ob")" "$ocl_os"
fi
read -r nsw lost < <(os_counts "$work/keep.pingpong.os")
extra=$(($(bytes "$work/keep.pingpong.os") - $(bytes "$work/keep.pingpong.noos")))
per=$(awk -v e="$extra" -v n="$nsw" 'BEGIN { printf "%.1f", (n > 0 ? e / n : 0) }')
echo "pingpong $rounds round trips: $nsw CPU-state intervals (one per context switch)," \
	"$extra trace bytes more than --no-os, $lost OS records lost" \
	"(kernel ring: 32 bytes per switch record)"
echo "os-bench: pingpong_os_pct=$(pct "$po" "$pn") pingpong_noos_pct=$(pct "$pn" "$pb")" \
	"opencl_os_pct=$ocl_os perf_bytes_per_switch=$per lost=$lost"
