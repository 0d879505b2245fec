#!/usr/bin/env bash
# Cost of OS scheduling records (perf_event context switches): a 2-thread
# pipe ping-pong (about 4 context switches and 2 annotated events per round
# trip) and the OpenCL example, each untraced, recorded with --no-os,
# recorded with --os (the default: per-CPU events read by record where
# permitted) and recorded by the per-thread method (forced: system-wide perf
# events refused to record with tests' os_deny --cpu-wide). Configurations
# are interleaved; medians of wall time over REPS runs. switch_cost_ns: the
# ping-pong's extra time over --no-os per recorded switch (CPU-state
# interval), what a traced thread pays per context switch. Also: trace bytes
# per context switch and OS records lost. Not pass/fail.
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
deny=$build/bin/os_deny
for f in "$ht" "$prog" "$deny"; do
	[ -x "$f" ] || { echo "os-bench: $f not built" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ht-os-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# wall NAME CONFIG CMD...: appends the wall time (ns) to $work/NAME.CONFIG; what
# the program says of its own loop (os_prog: "wall_ns=W cpu_ns=C") to NAME.CONFIG.loop
wall() {
	local name=$1 cfg=$2 t0 t1
	shift 2
	t0=$(date +%s%N)
	case $cfg in
	base) "$@" >"$work/out" 2>/dev/null ;;
	noos) "$ht" record -q --no-os -o "$work/t.$name.$cfg" -- "$@" >"$work/out" 2>/dev/null ;;
	os) "$ht" record -q --os -o "$work/t.$name.$cfg" -- "$@" >"$work/out" 2>/dev/null ;;
	thread) "$deny" --cpu-wide "$ht" record -q --os -o "$work/t.$name.$cfg" -- "$@" \
		>"$work/out" 2>/dev/null ;;
	esac
	t1=$(date +%s%N)
	echo $((t1 - t0)) >>"$work/$name.$cfg"
	sed -n 's/.*wall_ns=\([0-9]*\) cpu_ns=\([0-9]*\).*/\1 \2/p' "$work/out" >>"$work/$name.$cfg.loop"
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# loop_median NAME CONFIG COLUMN: median of the program's own loop wall (1) or CPU (2) time
loop_median() { cut -d' ' -f"$3" "$work/$1.$2.loop" >"$work/col" && median "$work/col"; }

keep() { # keep NAME CONFIG: the last recorded trace of a configuration, for sizes
	rm -rf "$work/keep.$1.$2"
	mv "$work/t.$1.$2" "$work/keep.$1.$2"
}

have_cl=0
[ -x "$cl" ] && "$cl" 2 >/dev/null 2>&1 && have_cl=1
for r in $(seq 1 "$reps"); do
	for c in base noos os thread; do
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

# method TRACE: which OS method recorded it, as info says
method() {
	"$ht" info "$1" | sed -n 's/^  os .* from \(per-[a-zA-Z]*\) .*/\1/p' | head -1
}
# per_switch NS BASE_NS TRACE: extra ns per CPU-state interval of TRACE
per_switch() {
	local n
	read -r n _ < <(os_counts "$3")
	awk -v a="$1" -v b="$2" -v n="$n" 'BEGIN { printf "%.0f", (n > 0 ? (a - b) / n : 0) }'
}

printf "%-10s %12s %12s %12s %12s %10s %10s %10s\n" program untraced_ms no-os_ms os_ms thread_ms \
	noos_pct os_pct thread_pct
pb=$(median "$work/pingpong.base") pn=$(median "$work/pingpong.noos") po=$(median "$work/pingpong.os")
pt=$(median "$work/pingpong.thread")
printf "%-10s %12s %12s %12s %12s %9s%% %9s%% %9s%%\n" pingpong "$(ms "$pb")" "$(ms "$pn")" \
	"$(ms "$po")" "$(ms "$pt")" "$(pct "$pn" "$pb")" "$(pct "$po" "$pn")" "$(pct "$pt" "$pn")"
ocl_os=n/a ocl_thread=n/a
if [ $have_cl = 1 ]; then
	ob=$(median "$work/opencl.base") on=$(median "$work/opencl.noos") oo=$(median "$work/opencl.os")
	ot=$(median "$work/opencl.thread")
	ocl_os=$(pct "$oo" "$on") ocl_thread=$(pct "$ot" "$on")
	printf "%-10s %12s %12s %12s %12s %9s%% %9s%% %9s%%\n" "cl_loop $iters" "$(ms "$ob")" \
		"$(ms "$on")" "$(ms "$oo")" "$(ms "$ot")" "$(pct "$on" "$ob")" "$ocl_os" "$ocl_thread"
fi
read -r nsw lost < <(os_counts "$work/keep.pingpong.os")
read -r nsw_t lost_t < <(os_counts "$work/keep.pingpong.thread")
extra=$(($(bytes "$work/keep.pingpong.os") - $(bytes "$work/keep.pingpong.noos")))
per=$(awk -v e="$extra" -v n="$nsw" 'BEGIN { printf "%.1f", (n > 0 ? e / n : 0) }')
# the ping-pong loop's own times: no process start, finalization or trace size in them
cost=$(per_switch "$(loop_median pingpong os 1)" "$(loop_median pingpong noos 1)" "$work/keep.pingpong.os")
cost_t=$(per_switch "$(loop_median pingpong thread 1)" "$(loop_median pingpong noos 1)" \
	"$work/keep.pingpong.thread")
cpu=$(per_switch "$(loop_median pingpong os 2)" "$(loop_median pingpong noos 2)" "$work/keep.pingpong.os")
cpu_t=$(per_switch "$(loop_median pingpong thread 2)" "$(loop_median pingpong noos 2)" \
	"$work/keep.pingpong.thread")
echo "pingpong $rounds round trips, --os by $(method "$work/keep.pingpong.os"):" \
	"$nsw CPU-state intervals (one per context switch), $extra trace bytes more than" \
	"--no-os, $lost OS records lost; per thread: $nsw_t intervals, $lost_t lost"
echo "per recorded switch over --no-os: $cost ns of the loop's wall time, $cpu ns of the" \
	"process's CPU time (per thread: $cost_t and $cpu_t ns)"
echo "os-bench: switch_cost_ns=$cost switch_cost_cpu_ns=$cpu thread_switch_cost_ns=$cost_t" \
	"thread_switch_cost_cpu_ns=$cpu_t" \
	"pingpong_os_pct=$(pct "$po" "$pn") pingpong_thread_pct=$(pct "$pt" "$pn")" \
	"pingpong_noos_pct=$(pct "$pn" "$pb") opencl_os_pct=$ocl_os opencl_thread_pct=$ocl_thread" \
	"perf_bytes_per_switch=$per lost=$lost method=$(method "$work/keep.pingpong.os")"
