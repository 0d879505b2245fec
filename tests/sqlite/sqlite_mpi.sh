# The SQLite export's MPI tables (mpi_ranks, mpi_ops) on a 4-rank Open MPI
# job (tests/mpi's mpi_prog, each rank under `hetrace record`), checked
# exactly against `report --format json` (mpi.ranks: rank, host, pid,
# clock, messages sent and received, collectives) and against mpi_prog's
# known calls. The job runs under `timeout` and is killed if the test ends
# early; Open MPI's session files go to the test's own directory.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/sqlib.sh"
SRC=$2
MPIPROG=$BUILD/bin/mpi_prog
/usr/bin/python3 -c "import sqlite3" 2>/dev/null || { echo "SKIP: python3 sqlite3 module missing"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: mpirun absent (openmpi-bin)"; exit 77; }
[ -x "$MPIPROG" ] && [ -e "$BUILD/lib/libhetrace-mpi.so" ] || { echo "SKIP: MPI support not built"; exit 77; }
mkdir tmp
export TMPDIR=$WORK/tmp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-opencl
ITERS=2
timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe -np 4 "$HT" record -o T -- \
	"$MPIPROG" $ITERS 2 20 >job.out 2>&1 &
background $!
wait $! || fail "the job failed: $(tail -5 job.out)"
kill_background
assert_eq "$(grep -c '^rank [0-3] of 4 sum' job.out)" 4 "ranks that finished"
"$HT" export T --format sqlite -o t.sqlite 2>err.txt || fail "export: $(cat err.txt)"
"$HT" report --format json T >r.json 2>err.txt || fail "report failed: $(cat err.txt)"
/usr/bin/python3 - t.sqlite r.json $ITERS <<'PY' || fail "mpi tables differ from the report"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
m = json.load(open(sys.argv[2]))["mpi"]
N = int(sys.argv[3])
def fail(msg):
    sys.exit("FAIL: " + msg)
got = db.execute("""SELECT r.rank, hs.value, p.pid, r.size, r.clock_offset_ns, r.clock_error_ns,
        r.clock_measurements,
        sum(o.kind IN ('send', 'isend') AND o.comm IS NOT NULL AND o.peer >= 0 AND NOT o.cancelled),
        sum(o.kind IN ('recv', 'irecv') AND o.comm IS NOT NULL AND o.peer >= 0 AND NOT o.cancelled),
        sum(o.kind IN ('coll', 'coll_post') AND o.comm IS NOT NULL),
        sum(CASE WHEN o.kind IN ('send', 'isend') AND o.comm IS NOT NULL AND o.peer >= 0 AND NOT o.cancelled THEN o.bytes END)
    FROM mpi_ranks r JOIN strings hs ON hs.id = r.host_id JOIN processes p ON p.id = r.process_id
    LEFT JOIN threads t ON t.process_id = r.process_id LEFT JOIN mpi_ops o ON o.thread_id = t.id
    GROUP BY r.process_id ORDER BY r.rank""").fetchall()
want = [(r["rank"], r["host"], r["pid"], m["size"],
         r["clock_offset_ns"] if r["clock_measurements"] else None,
         r["clock_error_ns"] if r["clock_measurements"] else None, r["clock_measurements"],
         r["sent"], r["received"], r["collectives"], r["bytes_sent"]) for r in m["ranks"]]
if len(got) != 4 or got != want:
    fail(f"per rank:\n  sqlite {got}\n  report {want}")
# mpi_prog per rank: 2N + 1 messages each way, N nonblocking sends completed,
# collectives: allreduce N + 1, bcast N, barrier N, reduce 1, split's allreduce
kinds = dict(db.execute("SELECT kind, count(*) FROM mpi_ops GROUP BY kind"))
for k, n in (("isend", 4 * N), ("isend_done", 4 * N), ("irecv_post", 4 * N), ("irecv", 4 * N),
             ("send", 4 * (N + 1)), ("recv", 4 * (N + 1))):
    if kinds.get(k) != n:
        fail(f"{k}: {kinds.get(k)} rows, {n} expected ({kinds})")
# every op's call: an MPI api_calls row of its thread begins at its begin
orphans = db.execute("""SELECT count(*) FROM mpi_ops o WHERE NOT EXISTS (SELECT 1 FROM api_calls a
    WHERE a.thread_id = o.thread_id AND a.start = o.begin)""").fetchone()[0]
if orphans:
    fail(f"{orphans} mpi_ops without their call in api_calls")
# a message's peer_world is a rank of the job, never itself
bad = db.execute("""SELECT count(*) FROM mpi_ops WHERE kind IN ('send', 'recv')
    AND (peer_world IS NULL OR peer_world = rank OR peer_world NOT IN (SELECT rank FROM mpi_ranks))""").fetchone()[0]
if bad:
    fail(f"{bad} messages with a bad peer_world")
print(f"ok: 4 ranks as the report, {sum(kinds.values())} mpi_ops {kinds}")
PY
doc_queries t.sqlite
[ "$(grep -cE '^[0-3]\|[^|]+\|'$((2 * ITERS + 1))'\|'$((2 * ITERS + 1))'\|' t.sqlite.queries)" = 4 ] || fail "the per-rank query: $(cat t.sqlite.queries)"
echo "ok"
