#!/usr/bin/env bash
# CUDA tracing cost per kernel launch: a loop of tiny kernel launches,
# untraced (base) vs under `hetrace record` (trace), interleaved, REPS runs
# each; prints the median ns per launch and the difference. Goal: <= 1 us
# added per launch. Not pass/fail. Says "no GPU" and exits 0 where there is none.
#
#   bench/cuda.sh BUILD_DIR        (REPS=5 N=200000 by default)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
reps=${REPS:-5}
n=${N:-200000}
bench=$build/bin/cuda_launch_bench
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
	echo "cuda-bench: no GPU: nothing measured"
	exit 0
fi
if [ ! -x "$bench" ] || [ ! -f "$build/lib/libhetrace-cuda.so" ]; then
	echo "cuda-bench: $bench or libhetrace-cuda.so not built (needs nvcc and CUPTI headers)" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ht-cuda-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

for r in $(seq "$reps"); do
	"$bench" "$n" | awk '{print $4}' >>"$work/base"
	"$build/bin/hetrace" record -q -o "$work/t$r" -- "$bench" "$n" | awk '{print $4}' >>"$work/trace"
	lost=$("$build/bin/hetrace" info "$work/t$r" | sed -n 's/^  lost *//p' | head -1)
	rm -rf "$work/t$r"
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
b=$(median "$work/base")
t=$(median "$work/trace")
echo "CUDA launch cost, $n launches of an empty kernel, median of $reps runs ($(nvidia-smi -L | head -1))"
printf '%-8s %12s\n' config ns/launch
printf '%-8s %12.1f\n' base "$b" trace "$t"
awk -v b="$b" -v t="$t" 'BEGIN { printf "added    %12.1f ns per launch (goal <= 1000)\n", t - b }'
echo "last traced run: ${lost:-?}"
