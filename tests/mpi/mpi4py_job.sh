#!/usr/bin/env bash
# An mpi4py job (Debian's python3-mpi4py, Open MPI), in both launch forms:
#   hetrace record -o T -- mpirun -np 2 python3 mpi4py_prog.py
#   mpirun -np 2 hetrace record -o T -- python3 mpi4py_prog.py
# Python loads libmpi privately after our interposer (a segfault at import
# before bind.c): the program must print what it prints untraced, and the
# report's "mpi" section must hold its messages, bytes and matched probes.
#   mpi4py_job.sh BUILD_DIR SOURCE_DIR
. "$(dirname "$0")/../integration/lib.sh"
src=$2
py=/usr/bin/python3
job=
end_job() {
	[ -z "$job" ] || kill -KILL "$job" 2>/dev/null
	rm -rf "$WORK"
}
trap end_job EXIT
command -v mpirun >/dev/null || { echo "SKIP: mpirun absent (openmpi-bin)"; exit 77; }
$py -c "import mpi4py, numpy" 2>/dev/null || { echo "SKIP: python3-mpi4py absent"; exit 77; }
mkdir tmp
export TMPDIR=$WORK/tmp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-opencl
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 2)
prog=$src/tests/mpi/mpi4py_prog.py

run() { # run NAME CMD...: output sorted (ranks print in any order)
	local name=$1
	shift
	timeout -k 5 120 "$@" >"$name.raw" 2>"$name.err" &
	job=$!
	wait "$job" || fail "$name failed: $(tail -5 "$name.err")"
	job=
	sort "$name.raw" >"$name.out"
}

run plain "${mpirun[@]}" $py "$prog"
assert_eq "$(cat plain.out)" "rank 0: sum 499500, got [0, 1, 2], allreduce 3
rank 1: sum 499500, got [], allreduce 3" "the untraced job's output"

check_job() { # check_job TRACE
	"$HT" report --format json "$1" >"$1.json" 2>"$1.rerr" || fail "report $1: $(cat "$1.rerr")"
	$py - "$1.json" <<'PY' || fail "report of $1"
import json, sys
r = json.load(open(sys.argv[1]))
m = r.get("mpi")
assert m and m["size"] == 2, "no 2-rank MPI job in the report: %s" % (m and m.get("size"))
ranks = {k["rank"]: k for k in m["ranks"]}
want = {0: (1, 3, 4000), 1: (3, 1, None)}
for rk, (sent, received, bytes_sent) in want.items():
    k = ranks[rk]
    assert k["sent"] == sent and k["received"] == received, \
        "rank %d sent %d received %d, expected %d and %d" % (rk, k["sent"], k["received"], sent, received)
    if bytes_sent is not None:
        assert k["bytes_sent"] == bytes_sent, "rank 0 sent %d bytes" % k["bytes_sent"]
assert ranks[1]["bytes_received"] == 4000, "rank 1 received %d bytes" % ranks[1]["bytes_received"]
assert ranks[0]["bytes_received"] == ranks[1]["bytes_sent"] > 0, "pickled bytes do not match"
calls = ranks[0]["calls"]
for fn, n in (("MPI_Mprobe", 3), ("MPI_Mrecv", 3), ("MPI_Send", 1), ("MPI_Allreduce", 2), ("MPI_Barrier", 1)):
    assert calls.get(fn, {}).get("count") == n, "rank 0: %s %s, expected %d" % (fn, calls.get(fn), n)
assert ranks[1]["calls"]["MPI_Recv"]["count"] == 1 and ranks[1]["calls"]["MPI_Send"]["count"] == 3
PY
}

run launcher "$HT" record -q -o L -- "${mpirun[@]}" $py "$prog"
cmp -s plain.out launcher.out || fail "traced (launcher form) printed: $(cat launcher.out)"
check_valid L
check_job L

run ranks "${mpirun[@]}" "$HT" record -q -o R -- $py "$prog"
cmp -s plain.out ranks.out || fail "traced (ranks form) printed: $(cat ranks.out)"
check_valid R
check_job R
# the ranks' parts sit in one directory per rank: the CTF export keeps that
# layout, and babeltrace2 reads every call of both ranks from it
"$HT" export R --format ctf -o C >/dev/null 2>ctf.err || fail "CTF export: $(cat ctf.err)"
bt2_read C bt.txt
calls=$($py -c "import json,sys; print(sum(a['count'] for a in json.load(open('R.json'))['api']))")
assert_eq "$(count ' hetrace:api_begin:' bt.txt)" "$calls" "api_begin events in the CTF export"
assert_eq "$(ls -d C/r00000-*/*-python3 C/r00001-*/*-python3 | wc -l)" 2 "rank directories in the CTF export"
echo "mpi_mpi4py: ok"
