#!/usr/bin/env bash
# MPI benchmark (issue 16: cost per MPI call <= 100 ns). One rank of
# ht-bench-mpi (bench/mpi/mpi_bench.c) times MPI_Test of a null request
# (a call that does nearly nothing: the interposer's own cost shows whole)
# and a message to itself (MPI_Irecv, MPI_Send, MPI_Wait: the calls and the
# message's records), plain and recorded through `mpirun -np 1 hetrace
# record` (the path users take), interleaved runs, medians. The cost of
# recording a call is the recorded median minus the plain one, the plain run
# being the anchor. Prints a table and ends with one `mpi-bench:` line.
# Never pass/fail.
#
#   bash bench/mpi.sh BUILD_DIR          (make bench BENCH=mpi)
#
# Knobs (environment): MPI_BENCH_RUNS (7), MPI_BENCH_TESTS (200000 calls),
# MPI_BENCH_ROUNDS (50000 messages: 3 calls each), TMPDIR (where the traces
# are written, /tmp by default; each is deleted after its run).
set -euo pipefail

build=$(cd "${1:-build}" && pwd)
runs=${MPI_BENCH_RUNS:-7}
tests=${MPI_BENCH_TESTS:-200000}
rounds=${MPI_BENCH_ROUNDS:-50000}
hetrace=$build/bin/hetrace
prog=$build/bin/ht-bench-mpi

if ! command -v mpirun >/dev/null || [ ! -x "$prog" ]; then
	echo "mpi-bench: skipped: needs Open MPI (openmpi-bin libopenmpi-dev) and $prog (make build)" >&2
	exit 0
fi
[ -x "$hetrace" ] || { echo "mpi-bench: missing $hetrace; build first (make build)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ht-mpi-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/ompi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-opencl
mpirun=(env TMPDIR="$tmp/ompi" timeout -k 5 300 mpirun --allow-run-as-root -np 1)

# field NAME: the value of NAME=VALUE in the `result` line on stdin.
field() {
	awk -v k="$1" '/^result /{for (i = 2; i <= NF; i++) {split($i, kv, "="); if (kv[1] == k) print kv[2]}}'
}

# median: of the numbers on stdin (NA if none).
median() {
	sort -g | awk '{v[n++] = $1} END {if (!n) print "NA"; else printf "%.1f\n", n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2}'
}

: >"$tmp/plain"
: >"$tmp/traced"
for i in $(seq "$runs"); do
	"${mpirun[@]}" "$prog" "$tests" "$rounds" >>"$tmp/plain"
	"${mpirun[@]}" "$hetrace" record -o "$tmp/T" -- "$prog" "$tests" "$rounds" >>"$tmp/traced" 2>"$tmp/err" ||
		{ echo "mpi-bench: the recorded run failed: $(tail -3 "$tmp/err")" >&2; exit 1; }
	[ "$i" -gt 1 ] || bytes=$(du -sb "$tmp/T" | cut -f1)
	rm -rf "$tmp/T"
done

printf '%-34s %10s %10s %10s\n' "ns per call (median of $runs)" plain recorded cost
for k in test p2p; do
	p=$(field ${k}_ns <"$tmp/plain" | median)
	r=$(field ${k}_ns <"$tmp/traced" | median)
	c=$(awk -v p="$p" -v r="$r" 'BEGIN {printf "%.1f", r - p}')
	printf '%-34s %10s %10s %10s\n' "$k" "$p" "$r" "$c"
	eval "${k}_cost=$c"
done
calls=$((tests + tests / 10 + 3 * (rounds + rounds / 10)))
per=$(awk -v b="$bytes" -v c="$calls" 'BEGIN {printf "%.1f", b / c}')
echo "trace bytes per recorded call (whole trace / calls): $per"
echo "mpi-bench: test_call_ns=$test_cost p2p_call_ns=$p2p_cost bytes_per_call=$per runs=$runs (goal: <= 100 ns per call)"
