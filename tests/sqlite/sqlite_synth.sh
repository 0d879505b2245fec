# SQLite export of synthetic traces with known contents: every row and value
# of the "queues" trace (synth_queues.c), the clock-synced device times of
# synth_trace's (its device clock runs 1 ms behind the host), and the
# report's counts per kernel and per API function.
. "$(dirname "$0")/../integration/lib.sh"
PY=/usr/bin/python3
"$PY" -c "import sqlite3" 2>/dev/null || { echo "SKIP: python3 sqlite3 module missing"; exit 77; }
"$BUILD/bin/synth_queues" q queues || fail "synth_queues"
"$BUILD/bin/synth_trace" s || fail "synth_trace"
for t in q s; do
	"$HT" export "$t" --format sqlite -o "$t.sqlite" 2>"$t.err" || fail "export $t: $(cat "$t.err")"
	"$HT" report "$t" --format json >"$t.json" || fail "report $t"
done
"$PY" - q.sqlite s.sqlite q.json <<'PY' || fail "rows"
import json, sqlite3, sys
B = 1000000000
def eq(what, got, want):
    if got != want:
        print(f"{what}:\n got  {got}\n want {want}"); sys.exit(1)
db = sqlite3.connect(sys.argv[1])
q = lambda sql: db.execute(sql).fetchall()
S = "(SELECT value FROM strings WHERE id = %s)"
meta = dict(q("SELECT key, value FROM meta"))
eq("schema", (meta["schema_version"], meta["schema_compat"], meta["time_unit"], meta["time_clock"]),
   ("2", "1", "ns", "CLOCK_MONOTONIC"))
eq("span", (int(meta["first_ns"]) - B, int(meta["last_ns"]) - B, meta["device_commands"]),
   (400, 12300, "5"))
eq("strings are interned", q("SELECT count(*) = count(DISTINCT value) FROM strings"), [(1,)])
eq("processes", q(f"SELECT id, pid, ppid, {S % 'name_id'}, start - {B}, end - {B} FROM processes"),
   [(1, 100, 0, "100-synth", 400, 12300)])
eq("threads", q(f"SELECT id, process_id, tid, {S % 'name_id'}, start - {B}, end - {B} FROM threads"),
   [(1, 1, 101, "main", 500, 12300)])
eq("queues", q("SELECT process_id, device, printf('0x%x', handle) FROM queues ORDER BY handle"),
   [(1, 0, "0xa1"), (1, 0, "0xb2")])
eq("devices", q("SELECT process_id, device, name_id, sync, offset_ns, samples FROM devices"),
   [(1, 0, None, "none", None, 0)])
eq("api_calls", q(f"""SELECT {S % 'function_id'}, start - {B}, end - {B}, status, correlation_id,
                      callstack_id, depth, args, thread_id FROM api_calls ORDER BY start"""), [
    ("clEnqueueNDRangeKernel", 1000, 1200, 0, 1, None, 0, '{"corr":1}', 1),
    ("clEnqueueNDRangeKernel", 1300, 1500, 0, 2, None, 0, '{"corr":2}', 1),
    ("clEnqueueNDRangeKernel", 1600, 1800, 0, 3, None, 0, '{"corr":3}', 1),
    ("clFinish", 3000, 6100, 0, None, None, 0, '{"command_queue":"0xb2"}', 1),
    ("clEnqueueNDRangeKernel", 6200, 6300, 0, 4, None, 0, '{"corr":4}', 1),
    ("clEnqueueReadBuffer", 6400, 6500, 0, 5, None, 0,
     '{"command_queue":"0xa1","blocking_read":0,"corr":5}', 1),
    ("clFinish", 7000, 10500, 0, None, None, 0, '{"command_queue":"0xa1"}', 1),
    ("clFinish", 10600, 12100, 0, None, None, 0, '{"command_queue":"0xb2"}', 1)])
eq("kernels", q(f"""SELECT {S % 'demangled_id'}, {S % 'name_id'}, printf('0x%x', q.handle), k.device,
                    queued - {B}, submit - {B}, start - {B}, end - {B}, grid_x, grid_y, grid_z,
                    block_x, block_y, block_z, correlation_id, status, timed, k.process_id
                    FROM kernels k JOIN queues q ON q.id = k.queue_id ORDER BY start"""), [
    ("kern_b", "kern_b", "0xb2", 0, 1400, 1600, 1800, 4000, 256, 2, 0, 64, 1, 0, 2, 0, 1, 1),
    ("kern_a", "kern_a", "0xa1", 0, 1100, 1150, 2000, 10000, 256, 2, 0, 64, 1, 0, 1, 0, 1, 1),
    ("kern_c", "kern_c", "0xb2", 0, 1700, 1750, 4500, 6000, 256, 2, 0, 64, 1, 0, 3, 0, 1, 1),
    ("kern_d(float*)", "_Z6kern_dPf", "0xb2", 0, 6250, 6260, 6400, 12000, 256, 2, 0, 64, 1, 0, 4, 0, 1, 1)])
eq("transfers", q(f"""SELECT kind, bytes, printf('0x%x', q.handle), queued - {B}, submit - {B},
                      start - {B}, end - {B}, correlation_id, status, timed
                      FROM transfers t JOIN queues q ON q.id = t.queue_id"""),
   [("copy_d2h", 4096, "0xa1", 6450, 6460, 10100, 10400, 5, 0, 1)])
eq("regions", q(f"SELECT {S % 'name_id'}, start - {B}, end - {B}, depth, thread_id FROM regions ORDER BY start"),
   [("prep", 2000, 3000, 0, 1), ("post", 12100, 12300, 0, 1)])
eq("instants", q(f"SELECT {S % 'name_id'}, ts - {B}, args, json_extract(args, '$.n') FROM instants"),
   [("mark", 2500, '{"n":7,"what":"x"}', 7)])
eq("counters", q(f"SELECT {S % 'name_id'}, ts - {B}, value FROM counters"), [("depth", 2600, 3.0)])
eq("no OS states", q("SELECT count(*) FROM os_states"), [(0,)])
eq("losses", q(f"SELECT id, process_id, thread_id, ts - {B}, kind, count FROM losses"),
   [(1, 1, None, 2700, "device_record", 3)])
eq("kernel launched by", q("""SELECT (SELECT value FROM strings WHERE id = k.demangled_id), a.start
                              FROM kernels k JOIN api_calls a ON a.correlation_id = k.correlation_id
                              WHERE k.correlation_id = 4"""), [("kern_d(float*)", B + 6200)])
# row counts agree with the report: kernels per name, API calls per function
r = json.load(open(sys.argv[3]))
want = {}
for k in r["kernels"]:
    want[k["name"]] = want.get(k["name"], 0) + k["count"]
eq("kernels per name vs report", dict(q("""SELECT s.value, count(*) FROM kernels k
    JOIN strings s ON s.id = k.demangled_id WHERE timed AND status = 0 GROUP BY 1""")), want)
eq("calls per function vs report", dict(q("""SELECT s.value, count(*) FROM api_calls a
    JOIN strings s ON s.id = a.function_id GROUP BY 1""")), {a["name"]: a["count"] for a in r["api"]})
eq("call totals vs report", dict(q("""SELECT s.value, sum(a.end - a.start) FROM api_calls a
    JOIN strings s ON s.id = a.function_id GROUP BY 1""")), {a["name"]: a["total_ns"] for a in r["api"]})
# the device clock 1 ms behind the host: times mapped by the clock sync, as the report has them
db = sqlite3.connect(sys.argv[2])
q = lambda sql: db.execute(sql).fetchall()
eq("synced kernel", q(f"SELECT queued - {B}, submit - {B}, start - {B}, end - {B}, correlation_id FROM kernels"),
   [(2200, 2300, 4000, 8000, 1)])
eq("synced transfer", q(f"SELECT kind, bytes, start - {B}, end - {B} FROM transfers"),
   [("copy_d2h", 1000000, 12000, 13000)])
eq("device clock", q("SELECT sync, round(offset_ns), samples > 0 FROM devices"), [("ok", 1000000.0, 1)])
PY
# how processes ended: a shell that exits 3 after its child, killed by SIGTERM
"$HT" record -q -o k -- sh -c 'sh -c "kill -TERM \$\$"; exit 3' >k.out 2>&1
assert_eq "$?" 3 "the recorded shell's status"
"$HT" export k --format sqlite -o k.sqlite 2>err.txt || fail "export k: $(cat err.txt)"
got=$(/usr/bin/python3 -c "import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute('SELECT group_concat(coalesce(exit_code, \'-\') || \'/\' || coalesce(exit_signal, \'-\'), \' \') FROM (SELECT * FROM processes ORDER BY id)').fetchone()[0])" k.sqlite)
assert_eq "$got" "3/- -/15" "processes' exit_code/exit_signal"
echo "ok"
