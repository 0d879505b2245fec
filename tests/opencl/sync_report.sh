# Clock sync and the report on real PoCL traces: the device->host map agrees
# with an independent measurement of PoCL's clock (CLOCK_MONOTONIC_RAW), every
# command's synced [START, END] lies inside its host window, the tables count
# exactly what the program did, and the GPU-idleness blame names the CPU work.
. "$(dirname "$0")/../integration/lib.sh"
N=12
# CLOCK_MONOTONIC - CLOCK_MONOTONIC_RAW, sampled around a run: the true drift.
# Each reading brackets MONOTONIC between two RAW reads and the tightest of
# 200 is kept: a single pair read on a busy machine can be split by a
# preemption, which adds its length to the offset (88 us, read as -88 ppm)
offsets() {
	/usr/bin/python3 -c 'import time
def one():
    r0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW); m = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    r1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)
    return r1 - r0, m, m - (r0 + r1) // 2
w, m, o = min(one() for _ in range(200))
print(m, o)'
}
for dev in basic pthread; do
	offsets >before-$dev.txt
	POCL_DEVICES=$dev "$HT" record -q -o t-$dev -- "$BUILD/bin/cl_loop" $N >out.txt ||
		fail "$dev: record failed"
	offsets >after-$dev.txt
	"$HT" report t-$dev --format json >r-$dev.json || fail "$dev: report failed"
	/usr/bin/python3 - r-$dev.json $N $dev before-$dev.txt after-$dev.txt <<'PY' || fail "$dev: report checks"
import json, sys, time
r = json.load(open(sys.argv[1])); n = int(sys.argv[2]); dev = sys.argv[3]
(t0, o0), (t1, o1) = (map(int, open(f).read().split()) for f in sys.argv[4:6])
def fail(msg):
    print(f"{dev}: {msg}"); sys.exit(1)
k = {x["name"]: x for x in r["kernels"]}
t = {x["name"]: x for x in r["transfers"]}
if k.get("scale", {}).get("count") != n: fail(f"kernels: {r['kernels']}")
if t.get("copy_h2d", {}).get("count") != 2 * n: fail(f"h2d: {t}")
if t["copy_h2d"]["bytes"] != 2 * n * 65536 * 4: fail(f"h2d bytes {t['copy_h2d']['bytes']}")
if t.get("copy_d2h", {}).get("bytes") != n * 65536 * 4: fail(f"d2h: {t}")
regions = {x["name"]: x for x in r["regions"]}
if regions.get("cpu_work", {}).get("count") != n: fail(f"regions {regions}")
d = r["devices"][0]; s = d["sync"]
if s["quality"] != "ok": fail(f"sync {s}")
if s["window_outside"] != 0 or s["window_checked"] != 8 * n: fail(f"windows {s}")
if not s["bound_ns"] < 5e6: fail(f"bound {s['bound_ns']}")
# PoCL's device clock is CLOCK_MONOTONIC_RAW: the map's offset is RAW's lead over MONOTONIC
raw = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW); mono = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
expect = mono - raw
if abs(s["offset_ns"] - expect) > 2e6: fail(f"offset {s['offset_ns']} vs CLOCK_MONOTONIC - RAW {expect}")
# drift: the true one (MONOTONIC against RAW over the run) is within the range the
# samples allow; a value is reported only when the range pins it (excludes no
# drift, or is under 1 ppm wide), else it is null ("not determined")
true_ppm = (o1 - o0) / (t1 - t0) * 1e6
lo, hi = s["drift_range_ppm"]
if not lo - 0.5 <= true_ppm <= hi + 0.5: fail(f"true drift {true_ppm:.3f} ppm outside [{lo}, {hi}]")
pinned = not lo <= 0 <= hi or hi - lo <= 1
if (s["drift_ppm"] is not None) != pinned: fail(f"drift {s['drift_ppm']} with range [{lo}, {hi}]")
if s["drift_ppm"] is not None and not lo <= s["drift_ppm"] <= hi: fail(f"drift {s['drift_ppm']}")
if d["commands"] != 4 * n: fail(f"commands {d['commands']}")
if d["busy_ns"] <= 0 or d["idle_ns"] <= 0: fail(f"busy/idle {d}")
# the queue is empty during cpu_work (a blocking read precedes it): all of that
# region's time is device idleness blamed on it, except where the OS had the
# thread preempted or blocked (a busy machine), which blames no one
blame = {b["in"]: b["idle_ns"] for b in d["blame"]}
cw = regions["cpu_work"]["total_ns"]
off = sum(t["preempted_ns"] + t["blocked_ns"] for t in r["os"]["threads"])
got = blame.get("region cpu_work", 0)
if got > 1.01 * cw or got < 0.99 * cw - off:
    fail(f"blame on cpu_work {got} vs its time {cw} (thread off CPU {off})")
PY
done
echo "ok"
