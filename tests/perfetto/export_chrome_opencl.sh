# Chrome JSON export of a real OpenCL run (vecadd on PoCL): X events for the
# four device commands on one queue pseudo-thread, each enclosed flow-linked
# to its enqueue call (the blocking read's too).
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
record_vecadd r
export_ok r chrome r.json
PYTHONPATH=$SRC python3 - r.json <<'PY' || fail "chrome JSON content"
import sys
from chrome_check import load, fail, meta, enclosing
doc, slices = load(sys.argv[1])
dev = sorted((s["name"], s["cat"], s["args"].get("bytes")) for s in slices
             if 0x40000000 <= s["tid"] < 0x50000000)
want = sorted([("copy_h2d", "copy_h2d", 262144)] * 2 + [("vecadd", "kernel", None),
              ("copy_d2h", "copy_d2h", 262144)])
if dev != want:
    fail(f"device commands: {dev}")
links = sorted((enclosing(slices, f["s"])["name"], enclosing(slices, f["f"])["name"])
               for f in doc["_flows"].values())
if links != sorted([("clEnqueueWriteBuffer", "copy_h2d")] * 2 + [
        ("clEnqueueNDRangeKernel", "vecadd"), ("clEnqueueReadBuffer", "copy_d2h")]):
    fail(f"flows: {links}")
if len([v for v in meta(doc, "thread_name").values() if v.startswith("GPU ")]) != 1:
    fail("queue pseudo-threads")
# OS scheduling (where perf events are allowed): X events on "tid N: CPU state"
cpu = [s for s in slices if s["tid"] >= 0x50000000]
names = meta(doc, "thread_name")
for s in cpu:
    if s["name"] not in ("running", "preempted", "blocked") or s["cat"] != "cpu_state" \
            or not isinstance(s["args"].get("cpu"), int) \
            or not names.get((s["pid"], s["tid"]), "").endswith(": CPU state"):
        fail(f"CPU state slice {s}")
PY
echo "ok"
