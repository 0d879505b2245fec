# Chrome JSON export of the synthetic trace (timeline in synth_trace.c):
# parses, and holds exactly the slices, queue pseudo-thread, args and flow
# expected, with ts in µs relative to the trace start (ns precision).
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
"$BUILD/bin/synth_trace" t || fail "synth_trace failed"
export_ok t chrome t.json
PYTHONPATH=$SRC python3 - t.json <<'PY' || fail "chrome JSON content"
import sys
from chrome_check import load, fail, meta, enclosing
doc, slices = load(sys.argv[1])
def eq(what, got, want):
    if got != want:
        fail(f"{what}: got {got!r}, want {want!r}")
base = 1000001000  # no index: the first record
eq("trace start", doc["otherData"]["trace_start_ns"], base)
eq("device commands", doc["otherData"]["device_commands"], 2)
eq("process names", meta(doc, "process_name"), {(100, 100): "100-synth"})
threads = meta(doc, "thread_name")
queues = [k for k, v in threads.items() if v == "GPU 0 / queue 0xabc0"]
eq("queue pseudo-threads", len(queues), 1)
qtid = queues[0][1]
eq("thread names", len(threads), 1)  # thread 101 has no name
got = sorted((s["tid"], s["name"], s["cat"], s["ts"], s["dur"]) for s in slices)
want = sorted([
    (101, "step", "region", 0, 8500), (101, "clEnqueueNDRangeKernel", "api", 1000, 500),
    (101, "clFinish", "api", 2000, 6000), (101, "clFinish", "api", 9000, 100),
    (101, "step", "region", 19000, 1000),
    (qtid, "kern_a", "kernel", 3000, 4000), (qtid, "copy_d2h", "copy_d2h", 11000, 1000)])
eq("slices", got, want)
by = {s["name"]: s for s in slices}
eq("kern_a args", by["kern_a"]["args"], {"corr": 1, "global_work_size": [1024, 0, 0],
   "queued_us": 1.2, "submit_us": 1.3, "host_queue_wait_ns": 100, "device_queue_wait_ns": 1700})
eq("copy bytes", by["copy_d2h"]["args"]["bytes"], 1000000)
eq("enqueue args", by["clEnqueueNDRangeKernel"]["args"], {"ret": 0, "corr": 1})
eq("flows", len(doc["_flows"]), 1)
fl = next(iter(doc["_flows"].values()))
eq("flow source", enclosing(slices, fl["s"])["name"], "clEnqueueNDRangeKernel")
eq("flow target", enclosing(slices, fl["f"])["name"], "kern_a")
eq("event count", len(doc["traceEvents"]), 17)
PY
# ns precision survives: three decimals on every ts
assert_eq "$(grep -cE '"ts":-?[0-9]+\.[0-9]{3}[,}]' t.json)" 14 "ts with 3 decimals"
echo "ok"
