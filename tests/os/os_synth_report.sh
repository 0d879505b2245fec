# The report's CPU-state numbers on a synthetic trace (os_synth.c), against
# values computed by hand: per-thread states, CPU states in blocking calls
# and after the device was done, and GPU-idleness blame that leaves out
# preempted and blocked threads.
. "$(dirname "$0")/../integration/lib.sh"
"$BUILD/bin/os_synth" t || fail "os_synth failed"
check_valid t
"$HT" report t --format json >r.json || fail "report failed"
python3 - r.json <<'PY' || fail "report values"
import json, sys
r = json.load(open(sys.argv[1]))
def eq(what, got, want):
    if got != want:
        print(f"{what}: got {got}, want {want}"); sys.exit(1)
th = {t["name"]: t for t in r["os"]["threads"]}
m, h = th["main"], th["helper"]
eq("main running", m["running_ns"], 2500 + 500 + 1700 + 6500)
eq("main preempted", m["preempted_ns"], 600 + 1400)
eq("main blocked", m["blocked_ns"], 3500 + 700 + 1600)
eq("main intervals", m["intervals"], 9)
eq("helper", (h["running_ns"], h["preempted_ns"], h["blocked_ns"]), (1000, 0, 18000))
eq("main wait", (m["wait_ns"], m["wait_preempted_ns"], m["wait_blocked_ns"]), (10000, 2000, 5800))
eq("main done", (m["done_ns"], m["done_preempted_ns"], m["done_blocked_ns"]), (3000, 2000, 300))
w = {x["name"]: x for x in r["os"]["blocking_calls"]}
eq("blocking calls", sorted(w), ["clEnqueueReadBuffer", "clFinish"])
f, rd = w["clFinish"], w["clEnqueueReadBuffer"]
# clFinish 3000-9000: device idle from 8000; blocked 3500-7000, 7500-8200; preempted 8200-8800
eq("clFinish", (f["calls"], f["wait_ns"], f["preempted_ns"], f["blocked_ns"]), (1, 6000, 600, 4200))
eq("clFinish after done", (f["done_ns"], f["done_preempted_ns"], f["done_blocked_ns"]), (1000, 600, 200))
# read 10000-14000: device idle from 12000; blocked 10500-12100; preempted 12100-13500
eq("read", (rd["wait_ns"], rd["preempted_ns"], rd["blocked_ns"]), (4000, 1400, 1600))
eq("read after done", (rd["done_ns"], rd["done_preempted_ns"], rd["done_blocked_ns"], rd["done_preempted_max_ns"]), (2000, 1400, 100, 1400))
d = r["devices"][0]
eq("idle", d["idle_ns"], 3600 + 3000 + 8000)
# idle while a thread runs: main [900,3500) + [8800,10500) + [13500,20000); helper [900,2000)
eq("idle blamed", d["idle_blamed_ns"], 2600 + 1700 + 6500)
blame = {b["in"]: b["idle_ns"] for b in d["blame"]}
eq("blame", blame, {"(no API call or region)": 8075, "clEnqueueReadBuffer": 1000,
                    "clFinish": 700, "region poll": 525, "clEnqueueNDRangeKernel": 500})
PY
"$HT" report t >text.txt || fail "text report failed"
grep -q "clEnqueueReadBuffer: the device was done 2.000 us before these calls returned; the thread was preempted" text.txt ||
	fail "text GPU-done line: $(grep -A1 'device was done' text.txt)"
grep -qE '^  100 +101 +main +11.200 us +2.000 us +5.800 us' text.txt || fail "text CPU row: $(grep main text.txt)"
"$HT" report t --format csv >r.csv || fail "csv report failed"
grep -q '^wait,clFinish,1,6000,600,4200,1000,600,200,600$' r.csv || fail "csv wait row: $(grep ^wait r.csv)"
grep -q '^cpu,100,101,main,11200,2000,5800,9,' r.csv || fail "csv cpu row: $(grep ^cpu r.csv)"
"$BUILD/bin/ht_test_timeline" t >tl.txt 2>&1 || fail "timeline failed: $(tail -3 tl.txt)"
echo "ok"
