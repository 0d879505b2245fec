# The critical path of synthetic programs with a known answer (timelines in
# synth_queues.c; times in ns after its base):
#  queues: two queues; the path runs through Q2 (kern_b -> kern_c -> kern_d,
#          by launch, queue order and two clFinish waits); kern_a, the longest
#          kernel, is off it.
#  graph:  a CUDA Graph launch whose three kernels are three nodes on one queue.
. "$(dirname "$0")/../integration/lib.sh"
SQ=$BUILD/bin/synth_queues
"$SQ" q queues || fail "synth_queues queues"
"$SQ" g graph || fail "synth_queues graph"
for t in q g; do
	check_valid "$t"
	"$HT" report "$t" --format json >"$t.json" || fail "report $t"
done
python3 - q.json g.json <<'PY' || fail "critical path values"
import json, sys
B = 1000000000
def cp(path):
    return json.load(open(path))["critical_path"]
def eq(what, got, want):
    if got != want:
        print(f"{what}:\n got  {got}\n want {want}"); sys.exit(1)
def items(c):
    return {(i["kind"], i["name"]): i["on_path_ns"] for i in c["items"] if i["on_path_ns"]}
def steps(c):
    return [(s["kind"], s["name"], s["start_ns"] - B, s["end_ns"] - B,
             s.get("tid"), s.get("queue")) for s in c["steps"]]
NF = "(no API call or region)"
q = cp(sys.argv[1])
eq("queues: span", (q["start_ns"] - B, q["end_ns"] - B, q["length_ns"]), (500, 12300, 11800))
eq("queues: graph", (q["pid"], q["calls"], q["commands"], q["unlinked_commands"], q["cut"]),
   (100, 8, 5, 0, False))
eq("queues: steps", steps(q), [
    ("cpu", NF, 500, 1000, 101, None),
    ("api", "clEnqueueNDRangeKernel", 1000, 1200, 101, None),
    ("cpu", NF, 1200, 1300, 101, None),
    ("api", "clEnqueueNDRangeKernel", 1300, 1500, 101, None),
    ("launch", "kern_b", 1500, 1800, None, "0xb2"),
    ("kernel", "kern_b", 1800, 4000, None, "0xb2"),
    ("queue", "kern_c", 4000, 4500, None, "0xb2"),
    ("kernel", "kern_c", 4500, 6000, None, "0xb2"),
    ("api", "clFinish", 6000, 6100, 101, None),
    ("cpu", NF, 6100, 6200, 101, None),
    ("api", "clEnqueueNDRangeKernel", 6200, 6300, 101, None),
    ("launch", "kern_d(float*)", 6300, 6400, None, "0xb2"),
    ("kernel", "kern_d(float*)", 6400, 12000, None, "0xb2"),
    ("api", "clFinish", 12000, 12100, 101, None),
    ("cpu", "post", 12100, 12300, 101, None)])
eq("queues: items", items(q), {
    ("kernel", "kern_d(float*)"): 5600, ("kernel", "kern_b"): 2200, ("kernel", "kern_c"): 1500,
    ("cpu", NF): 700, ("api", "clEnqueueNDRangeKernel"): 500, ("queue", "kern_c"): 500,
    ("launch", "kern_b"): 300, ("api", "clFinish"): 200, ("cpu", "post"): 200,
    ("launch", "kern_d(float*)"): 100})
eq("queues: order", [i["name"] for i in q["items"]][:3], ["kern_d(float*)", "kern_b", "kern_c"])
a = [i for i in q["items"] if i["kind"] == "kernel" and i["name"] == "kern_a"]
eq("queues: kern_a off the path", [(i["on_path_ns"], i["total_ns"], i["count"]) for i in a],
   [(0, 8000, 1)])
fin = [i for i in q["items"] if i["kind"] == "api" and i["name"] == "clFinish"][0]
eq("queues: clFinish totals", (fin["total_ns"], fin["count"], fin["steps"]), (8100, 3, 2))
eq("queues: steps_total", q["steps_total"], len(q["steps"]))
eq("queues: the steps add up", sum(i["on_path_ns"] for i in q["items"]), q["length_ns"])
g = cp(sys.argv[2])
eq("graph: span", (g["start_ns"] - B, g["end_ns"] - B, g["length_ns"]), (500, 5100, 4600))
eq("graph: steps", [s[:4] for s in steps(g)], [
    ("cpu", NF, 500, 1000), ("api", "cudaGraphLaunch", 1000, 1100),
    ("launch", "g1", 1100, 1500), ("kernel", "g1", 1500, 2500), ("queue", "g2", 2500, 2600),
    ("kernel", "g2", 2600, 3600), ("queue", "g3", 3600, 3700), ("kernel", "g3", 3700, 5000),
    ("api", "cudaDeviceSynchronize", 5000, 5100)])
eq("graph: one node per graph kernel", g["commands"], 3)
PY
# a program without a device (the report reads slice ends only): the path is its thread's
# whole life, every call on it; CPU time split by region as in the begin-and-end case
"$HT" record -q -o api -- "$PROG" api 50 >api.out 2>&1 || fail "record api: $(cat api.out)"
"$HT" report api --format json >api.json || fail "report api"
python3 - api.json <<'PY' || fail "critical path without a device"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["critical_path"]
items = {(i["kind"], i["name"]): i for i in c["items"]}
read = items[("api", "fakeRead")]
assert (read["on_path_ns"], read["count"], read["steps"]) == (read["total_ns"], 50, 50), read
assert items[("api", "fakeInit")]["steps"] == 1, items
assert c["calls"] == 51 and c["commands"] == 0, c
assert sum(i["on_path_ns"] for i in c["items"]) == c["length_ns"] == c["end_ns"] - c["start_ns"], c
assert [s["kind"] for s in c["steps"]].count("api") == 51, c["steps"][:4]
assert all(s["name"] == "(CPU outside API calls)" for s in c["steps"] if s["kind"] == "cpu"), c["steps"][:4]
api = {a["name"]: a for a in r["api"]}
assert api["fakeRead"]["total_ns"] == read["total_ns"], (api, read)
PY
"$HT" report q >q.txt || fail "text report"
grep -q "^Critical path: 11.800 us in pid 100, 15 steps" q.txt ||
	fail "text header: $(grep -A2 '^Critical' q.txt)"
grep -qE "^  kernel +5.600 us +47.46% +5.600 us \(1\)  kern_d\(float\*\)$" q.txt ||
	fail "text item: $(grep kern_d q.txt)"
grep -q "off the path: kernel kern_a (8.000 us in 1 runs)" q.txt || fail "text: kern_a off the path"
"$HT" report q --format csv >q.csv || fail "csv report"
grep -q '^critical_path,kernel,kern_d(float\*),5600,0.4746,1,5600,1$' q.csv || fail "csv item: $(grep kern_d q.csv)"
grep -q '^critical_step,queue,kern_c,1000004000,1000004500,100,0,0,0xb2$' q.csv ||
	fail "csv step: $(grep critical_step q.csv | head -8)"
echo "ok"
