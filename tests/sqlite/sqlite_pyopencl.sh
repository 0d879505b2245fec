# SQLite export of a real OpenCL workload (tests/opencl/cl_pyopencl.py on
# PoCL: two copies in, two kernels, one copy out): its rows agree with the
# report (kernels per name, API calls per function with their totals,
# transfers per kind), every command is linked to its enqueue call, and the
# devices table has the clock sync the report shows.
. "$(dirname "$0")/../integration/lib.sh"
SRC=$2
PY=/usr/bin/python3
export POCL_DEVICES=${POCL_DEVICES:-basic}
[ -e "$BUILD/lib/libhetrace-opencl.so" ] || { echo "SKIP: libhetrace-opencl.so not built"; exit 77; }
"$PY" -c "import pyopencl, numpy, sqlite3" 2>/dev/null || { echo "SKIP: python3-pyopencl missing"; exit 77; }
"$HT" record -q -o py -- "$PY" "$SRC/tests/opencl/cl_pyopencl.py" >py.out 2>&1 || {
	grep -q "pyopencl: ok" py.out || { echo "SKIP: no usable OpenCL device: $(tail -2 py.out)"; exit 77; }
	fail "record: $(cat py.out)"
}
grep -q "pyopencl: ok" py.out || fail "the traced program failed: $(cat py.out)"
"$HT" export py --format sqlite -o py.sqlite 2>err.txt || fail "export: $(cat err.txt)"
"$HT" report py --format json >py.json || fail "report"
"$PY" - py.sqlite py.json <<'PY' || fail "export and report disagree"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
r = json.load(open(sys.argv[2]))
q = lambda sql: db.execute(sql).fetchall()
def eq(what, got, want):
    if got != want:
        print(f"{what}:\n got  {got}\n want {want}"); sys.exit(1)
kernels = {}
for k in r["kernels"]:
    kernels[k["name"]] = kernels.get(k["name"], 0) + k["count"]
eq("kernels per name", dict(q("""SELECT s.value, count(*) FROM kernels k JOIN strings s
    ON s.id = k.demangled_id WHERE timed AND status = 0 GROUP BY 1""")), kernels)
eq("the workload's kernels", kernels, {"axpb": 2})
eq("kernel time", q("SELECT sum(end - start) FROM kernels WHERE timed AND status = 0")[0][0],
   sum(k["total_ns"] for k in r["kernels"]))
calls = dict(q("""SELECT s.value, count(*) FROM api_calls a JOIN strings s ON s.id = a.function_id
                  GROUP BY 1"""))
eq("API calls per function", calls, {a["name"]: a["count"] for a in r["api"]})
eq("API time per function", dict(q("""SELECT s.value, sum(a.end - a.start) FROM api_calls a
    JOIN strings s ON s.id = a.function_id GROUP BY 1""")), {a["name"]: a["total_ns"] for a in r["api"]})
eq("some calls", (calls.get("clEnqueueNDRangeKernel"), calls.get("clBuildProgram")), (2, 1))
eq("transfers per kind", dict(q("""SELECT kind, count(*) || ' ' || sum(bytes) FROM transfers
    WHERE timed AND status = 0 GROUP BY kind""")),
   {t["name"]: f'{t["count"]} {t["bytes"]}' for t in r["transfers"]})
eq("copies", dict(q("SELECT kind, count(*) FROM transfers GROUP BY kind")), {"copy_h2d": 2, "copy_d2h": 1})
eq("every command linked to its enqueue call", q("""SELECT count(*) FROM (
    SELECT correlation_id c, process_id p FROM kernels UNION ALL
    SELECT correlation_id, process_id FROM transfers) x
    WHERE NOT EXISTS (SELECT 1 FROM api_calls a JOIN threads t ON t.id = a.thread_id
                      WHERE a.correlation_id = x.c AND t.process_id = x.p)"""), [(0,)])
eq("kernels launched by", q("""SELECT DISTINCT s.value FROM kernels k JOIN api_calls a
    ON a.correlation_id = k.correlation_id JOIN strings s ON s.id = a.function_id"""),
   [("clEnqueueNDRangeKernel",)])
eq("launch arguments", q("""SELECT DISTINCT json_extract(a.args, '$.global0'), k.grid_x FROM kernels k
    JOIN api_calls a ON a.correlation_id = k.correlation_id"""), [(4096, 4096)])
d = r["devices"][0]
(sync, offset, samples), = q("SELECT sync, offset_ns, samples FROM devices")
eq("devices", (sync, abs(offset - d["sync"]["offset_ns"]) < 1, samples),
   (d["sync"]["quality"], True, d["sync"]["samples"]))
eq("device command times inside the run", q("""SELECT count(*) FROM kernels WHERE
    start < (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'first_ns') OR
    end > (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_ns')"""), [(0,)])
meta = dict(q("SELECT key, value FROM meta"))
eq("meta", (meta["exit"], meta["exit_status"], meta["clock"] in ("tsc", "monotonic"),
            meta["hetrace_version"] == meta["exporter"].split()[1]), ("exited", "0", True, True))
cmd = meta["command"]
eq("meta command", cmd.endswith("tests/opencl/cl_pyopencl.py") and cmd.startswith("/usr/bin/python3"), True)
PY
echo "ok"
