# The SQLite export's memory-access tables (memory_access,
# memory_access_launches) on a recorded program: tests/memtrace's mt_prog
# (kernels with known access patterns on PoCL) under `record --memory-access
# --mode block`, checked exactly against `report --format json`
# (memory_access, memory_access_totals) and against the known pattern.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/sqlib.sh"
SRC=$2
MT=$BUILD/bin/mt_prog
/usr/bin/python3 -c "import sqlite3" 2>/dev/null || { echo "SKIP: python3 sqlite3 module missing"; exit 77; }
[ -x "$MT" ] || { echo "SKIP: mt_prog not built (no OpenCL)"; exit 77; }
[ -x "$BUILD/bin/hetrace-cl-rewrite" ] || { echo "SKIP: no OpenCL C rewriter (libclang-14-dev)"; exit 77; }
export POCL_DEVICES=${POCL_DEVICES:-basic} POCL_KERNEL_CACHE=1
"$MT" queries >/dev/null 2>&1 || { echo "SKIP: no OpenCL device"; exit 77; }
N=2048
"$HT" record -q -o t --memory-access --mode block -- "$MT" patterns $N >out.txt 2>err.txt ||
	fail "record failed: $(cat err.txt)"
"$HT" export t --format sqlite -o t.sqlite 2>err.txt || fail "export: $(cat err.txt)"
"$HT" report --format json t >r.json || fail "report json failed"
/usr/bin/python3 - t.sqlite r.json $N <<'PY' || fail "memory_access differs from the report"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d = json.load(open(sys.argv[2]))
N = int(sys.argv[3])
def fail(m):
    sys.exit("FAIL: " + m)
cols = ("kernel", "arg", "launches", "reads", "writes", "atomics", "bytes_read", "bytes_written",
        "bytes_atomic", "buffer_bytes", "range", "accesses_32", "out_of_bounds", "strides", "pid")
rows = []
for r in db.execute("""SELECT s.value, m.arg, m.launches, m.reads, m.writes, m.atomics, m.bytes_read,
        m.bytes_written, m.bytes_atomic, coalesce(m.buffer_bytes, 0), m.range_lo, m.range_hi,
        m.accesses_32, m.out_of_bounds, m.strides, p.pid, m.sectors, m.ideal_sectors
        FROM memory_access m JOIN strings s ON s.id = m.kernel_id
        JOIN processes p ON p.id = m.process_id ORDER BY m.id"""):
    rng = [r[10], r[11]] if r[10] is not None else [0, 0]
    row = dict(zip(cols, r[:10] + (rng,) + r[12:16]))
    row["strides"] = json.loads(row["strides"])
    row["sectors_per_access"] = round(r[16] / r[12], 4) if r[12] else 0.0
    row["ideal_sectors_per_access"] = round(r[17] / r[12], 4) if r[12] else 0.0
    rows.append(row)
want = d["memory_access"]
if len(rows) != len(want) or len(rows) != 11:
    fail(f"{len(rows)} rows, the report has {len(want)} (11 expected)")
for got, w in zip(rows, want):
    for k in got:
        if got[k] != w[k]:
            fail(f"{w['kernel']} argument {w['arg']}: {k} = {got[k]!r}, the report says {w[k]!r}")
unit = [r for r in rows if r["kernel"] == "unit" and r["arg"] == 0][0]
if unit["reads"] != N or unit["strides"] != {"4": N - N // 32}:
    fail(f"unit: {unit}")
t = d["memory_access_totals"]
n, records, dropped, ended = db.execute(
    "SELECT count(*), sum(records), sum(dropped), count(records) FROM memory_access_launches").fetchone()
if (n, records, dropped, ended) != (t["launches"], t["records"], t["dropped"], t["launches"]) or n != 5:
    fail(f"launches {n}, records {records}, dropped {dropped}, ended {ended}; report {t}")
# each launch is a kernel of the kernels table (by correlation id)
k = db.execute("""SELECT count(*) FROM memory_access_launches l JOIN kernels k
    ON k.correlation_id = l.correlation_id AND k.process_id = l.process_id
    JOIN strings a ON a.id = l.kernel_id JOIN strings b ON b.id = k.demangled_id
    WHERE a.value = b.value""").fetchone()[0]
if k != n:
    fail(f"{k} of {n} launches match a kernel by correlation id and name")
print(f"ok: {len(rows)} memory_access rows, {n} launches, {records} records")
PY
doc_queries t.sqlite
grep -qE '^unit\|0\|'"$N"'\|0\|0\|4.0\|4\|0$' t.sqlite.queries || fail "the memory-access query: no unit row"
echo "ok"
