# The report's numbers on a synthetic trace, against values computed by hand
# (timeline in synth_trace.c; all times in ns relative to BASE).
. "$(dirname "$0")/lib.sh"
"$BUILD/bin/synth_trace" t || fail "synth_trace failed"
check_valid t
"$HT" report t --format json >r.json || fail "report failed"
python3 - r.json <<'PY' || fail "report values"
import json, sys
r = json.load(open(sys.argv[1]))
def row(table, name):
    rows = [x for x in r[table] if x["name"] == name]
    assert len(rows) == 1, (table, name, r[table])
    return rows[0]
def eq(what, got, want):
    if got != want:
        print(f"{what}: got {got}, want {want}"); sys.exit(1)
fin = row("api", "clFinish")
eq("clFinish count", fin["count"], 2); eq("clFinish total", fin["total_ns"], 6100)
eq("clFinish min", fin["min_ns"], 100); eq("clFinish max", fin["max_ns"], 6000)
eq("clFinish p50", fin["p50_ns"], 100); eq("clFinish p99", fin["p99_ns"], 6000)
eq("clFinish thread share", round(fin["thread_share"], 4), 0.305)
eq("enqueue total", row("api", "clEnqueueNDRangeKernel")["total_ns"], 500)
step = row("regions", "step")
eq("step count", step["count"], 2); eq("step total", step["total_ns"], 9500)
k = row("kernels", "kern_a")
eq("kernel count", k["count"], 1); eq("kernel exec", k["total_ns"], 4000)
eq("kernel global", k["global"], [1024, 0, 0])
t = row("transfers", "copy_d2h")
eq("d2h bytes", t["bytes"], 1000000); eq("d2h time", t["total_ns"], 1000)
q = r["queues"][0]
eq("host queue wait", q["host_wait"]["total_ns"], 100 + 500)
eq("device queue wait", q["device_wait"]["total_ns"], 1700 + 500)
eq("exec mean", q["exec"]["mean_ns"], 2500.0)
d = r["devices"][0]
eq("sync quality", d["sync"]["quality"], "ok")
eq("offset", round(d["sync"]["offset_ns"]), 1000000)
# exact pairs 20 us apart pin the offset, not a drift: none assumed, and said so
eq("drift not determined", d["sync"]["drift_ppm"], None)
lo, hi = d["sync"]["drift_range_ppm"]
eq("drift range holds 0", lo < 0 < hi, True)
eq("windows checked", d["sync"]["window_checked"], 2)
eq("windows outside", d["sync"]["window_outside"], 0)
eq("busy", d["busy_ns"], 5000); eq("compute", d["compute_ns"], 4000)
eq("transfer", d["transfer_ns"], 1000); eq("overlap", d["overlap_ns"], 0)
eq("window", d["window_end_ns"] - d["window_begin_ns"], 20600)
eq("idle", d["idle_ns"], 15600)
eq("idle while a thread was active", d["idle_blamed_ns"], 15000)
blame = {b["in"]: b["idle_ns"] for b in d["blame"]}
eq("blame", blame, {"(no API call or region)": 9400, "region step": 3000,
                    "clFinish": 2100, "clEnqueueNDRangeKernel": 500})
eq("blame order", [b["in"] for b in d["blame"]][:2], ["(no API call or region)", "region step"])
PY
"$HT" report t >text.txt || fail "text report failed"
grep -q "GPU idleness blame: the device was idle for 15.000 us while a CPU thread was active" text.txt ||
	fail "text blame line: $(grep -i blame text.txt)"
grep -qE "^  clFinish +2 +6.100 us" text.txt || fail "text API row: $(grep clFinish text.txt)"
grep -q "drift not determined (the samples allow -46.30..+44.64 ppm; none assumed)" text.txt ||
	fail "text drift: $(grep 'clock sync' text.txt)"
"$HT" report t --format csv >r.csv || fail "csv report failed"
grep -qE '^device,100,0,2,5000,15600,4000,1000,0,15000,ok,1000000,,1,-46\.296,44\.643$' r.csv ||
	fail "csv device row (empty drift cell): $(grep ^device r.csv)"
grep -q '^api,clFinish,2,6100,3050.0,100,6000,100,6000,0.3050,0$' r.csv || fail "csv api row: $(grep clFinish r.csv)"
grep -q '^blame,100,0,region step,3000,0.2000$' r.csv || fail "csv blame row"
echo "ok"
