# Chrome JSON export of annot_prog threads 4 1000: thread names worker-K
# and exactly 1000 counter samples per worker, values K*1e6 .. K*1e6+999.
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
"$HT" record -o r -- "$PROG" threads 4 1000 >rec.out 2>&1 || fail "record failed: $(cat rec.out)"
export_ok r chrome r.json
PYTHONPATH=$SRC python3 - r.json r/hetrace.index <<'PY' || fail "chrome JSON content"
import sys
from chrome_check import load, fail, meta
doc, slices = load(sys.argv[1])
index = dict(l.split("=", 1) for l in open(sys.argv[2]).read().splitlines() if "=" in l)
if doc["otherData"]["trace_start_ns"] != int(index["start_monotonic_ns"]):
    fail("trace start is not the session start")
names = {v: k for k, v in meta(doc, "thread_name").items()}
for k in range(4):
    key = names.get(f"worker-{k}")
    if key is None:
        fail(f"no thread named worker-{k}: {names}")
    vals = [e["args"]["value"] for e in doc["traceEvents"]
            if e["ph"] == "C" and (e["pid"], e["tid"]) == key]
    if vals != list(range(k * 1000000, k * 1000000 + 1000)):
        fail(f"worker-{k} counters: {len(vals)} values, first {vals[:2]}")
    if any(e["name"] != "w" or e["id"] != str(key[1]) for e in doc["traceEvents"]
           if e["ph"] == "C" and (e["pid"], e["tid"]) == key):
        fail("counter name/id")
cs = [e for e in doc["traceEvents"] if e["ph"] == "C"]
if len(cs) != 4000:
    fail(f"{len(cs)} counter samples")
if min(e["ts"] for e in cs) < 0:
    fail("ts before the trace start")
PY
echo "ok"
