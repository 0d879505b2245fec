# OpenCL on PoCL with OS recording: the blocking reads of cl_loop show the
# waiting thread's CPU states, consistently (parts never exceed the whole).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/oslib.sh"
[ -x "$BUILD/bin/cl_loop" ] || { echo "SKIP: no cl_loop (OpenCL not built)"; exit 77; }
record_os -q -o t -- "$BUILD/bin/cl_loop" 10 >out.txt 2>&1 || fail "record exited $?: $(tail -3 out.txt)"
need_perf t
"$HT" report t --format json >r.json || fail "report failed"
python3 - r.json <<'PY' || fail "report OS values"
import json, sys
r = json.load(open(sys.argv[1]))
w = {x["name"]: x for x in r["os"]["blocking_calls"]}
rd = w["clEnqueueReadBuffer"]
assert rd["calls"] == 10 and rd["calls_with_os"] == 10, rd
assert rd["preempted_ns"] + rd["blocked_ns"] <= rd["wait_ns"], rd
assert rd["done_ns"] <= rd["wait_ns"], rd
assert rd["done_preempted_ns"] + rd["done_blocked_ns"] <= rd["done_ns"], rd
assert rd["done_preempted_ns"] <= rd["preempted_ns"], rd
assert rd["blocked_ns"] > 0, rd  # PoCL's host thread sleeps while its device thread works
th = r["os"]["threads"]
assert th and all(t["running_ns"] > 0 for t in th), th
d = r["devices"][0]
assert d["idle_blamed_ns"] <= d["idle_ns"], d
PY
dump t d.txt
$CHECK invariants d.txt >inv.txt || fail "invariants: $(cat inv.txt)"
echo "ok"
