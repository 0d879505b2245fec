# Calling contexts and CPU samples on ordinary -O2 -g C without frame
# pointers (cs_prog): each kernel's device time lands under the path that
# launched it and nowhere else, the CPU-bound function holds most samples,
# a dlopen'ed plugin's frames resolve, and the folded, Perfetto and HTML
# exports carry the stacks.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/samplib.sh"

"$HT" record -q -o t -- "$CS" 20 1500 "$PLUGIN" >out.txt 2>err.txt || fail "record failed: $(cat err.txt)"
grep -q "cs_prog: done" out.txt || fail "cs_prog did not finish: $(cat out.txt)"
[ ! -s err.txt ] || fail "record said something: $(cat err.txt)"
check_valid t
bt2_read t b.txt
dump t d.txt
assert_ge "$(count ' cpu_sample ' d.txt)" 200 "CPU samples"
assert_ge "$(count ' api_stack ' d.txt)" 42 "API calls with a stack (40 launches + their waits)"

"$HT" report --format json t >r.json || fail "report json failed"
json_check r.json '
ctx = d["calling_contexts"]
def find(frames):
    return [c for c in ctx if c["frames"] == frames]
a = find(["main", "phase_a", "launch_helper", "clEnqueueNDRangeKernel"])
b = find(["main", "phase_b", "launch_helper", "clEnqueueNDRangeKernel"])
p = find(["main", "plugin_run", "plugin_launch", "cs_launch", "clEnqueueNDRangeKernel"])
if len(a) != 1 or len(b) != 1:
    fail("the two launch paths: %r" % [c["frames"] for c in ctx])
if len(p) != 1:
    fail("the plugin (dlopen) path: %r" % [c["frames"] for c in ctx])
a, b, p = a[0], b[0], p[0]
if a["calls"] != 20 or b["calls"] != 20 or p["calls"] != 1:
    fail("calls: %d %d %d" % (a["calls"], b["calls"], p["calls"]))
if list(a["kernels"]) != ["kern_a"] or list(b["kernels"]) != ["kern_b"] or list(p["kernels"]) != ["kern_a"]:
    fail("kernels per path: %r %r %r" % (a["kernels"], b["kernels"], p["kernels"]))
# nowhere else: every kernel ns of the report is under its paths, and no other path has any
total = {}
for k in d["kernels"]:
    total[k["name"]] = total.get(k["name"], 0) + k["total_ns"]
if abs(total["kern_b"] - b["device_ns"]) > 20 or b["kernels"]["kern_b"] != b["device_ns"]:
    fail("kern_b: %r in the kernel table, %r under its path" % (total["kern_b"], b["device_ns"]))
if abs(total["kern_a"] - a["device_ns"] - p["device_ns"]) > 21:
    fail("kern_a: %r in the kernel table, %r + %r under its paths" % (total["kern_a"], a["device_ns"], p["device_ns"]))
others = [c for c in ctx if c not in (a, b, p) and c["device_ns"]]
if others:
    fail("device time under other paths: %r" % others)
if not b["device_ns"] > a["device_ns"] > 0:
    fail("kern_b does 4x kern_a work: %r vs %r" % (b["device_ns"], a["device_ns"]))
s = d["cpu_samples"]
f = s["functions"]
burn = [x for x in f if x["name"] == "burn_cpu"]
if not burn or f[0]["name"] != "burn_cpu":
    fail("burn_cpu is not the hottest function: %r" % f[:3])
burn = burn[0]
if burn["self"] * 100 < s["total"] * 30:
    fail("burn_cpu holds %d of %d samples" % (burn["self"], s["total"]))
if not burn["file"].endswith("tests/sampling/cs_prog.c") or burn["line"] <= 0:
    fail("burn_cpu defined at %r:%r" % (burn["file"], burn["line"]))
main = [x for x in f if x["name"] == "main"]
if not main or main[0]["total"] < burn["self"]:
    fail("main is not above burn_cpu: %r" % main)
spin = [x for x in f if x["name"] == "plugin_spin"]
if not spin or not spin[0]["file"].endswith("cs_plugin.c") or spin[0]["self"] < 20:
    fail("the plugin function plugin_spin: %r" % spin)
paths = [x for x in s["paths"] if x["frames"] == ["main", "burn_cpu"]]
if not paths or paths[0]["samples"] != burn["self"]:
    fail("the path main;burn_cpu: %r" % paths)
'
"$HT" report t >r.txt || fail "report text failed"
grep -q "^GPU time by calling context, top-down" r.txt || fail "no top-down section: $(cat r.txt)"
grep -qE "clEnqueueNDRangeKernel <- launch_helper <- phase_b <- main +\[kern_b " r.txt || fail "no bottom-up path for kern_b"
grep -qE "^ +[0-9]+ +[0-9.]+% +[0-9]+ +[0-9.]+% +burn_cpu " r.txt || fail "no burn_cpu row"
"$HT" report --format csv t >r.csv || fail "report csv failed"
grep -q '^calling_context,main;phase_a;launch_helper;clEnqueueNDRangeKernel,20,' r.csv || fail "csv path of phase_a"

# folded stacks: the CPU-bound function's stack, outermost first
"$HT" export t --format collapsed -o t.folded || fail "collapsed export failed"
grep -qE '^cs_prog;main;burn_cpu [0-9]+$' t.folded || fail "no cs_prog;main;burn_cpu line: $(head -5 t.folded)"
grep -qE '^cs_prog;main;plugin_run;plugin_spin [0-9]+$' t.folded || fail "no plugin line"
awk '{ if ($NF !~ /^[0-9]+$/ || NF < 2) { print "bad line: " $0; exit 1 } }' t.folded || fail "folded lines"

# Perfetto: samples as PerfSample with interned stacks, stacks on API slices
"$HT" export t --format perfetto -o t.pftrace || fail "perfetto export failed"
protoc --proto_path="$(dirname "$0")/../perfetto" --decode=perfetto.protos.Trace perfetto_subset.proto \
	<t.pftrace >t.pftxt 2>pf.err || fail "protoc: $(head -3 pf.err)"
assert_ge "$(grep -c 'perf_sample {' t.pftxt)" 200 "PerfSample packets"
grep -q 'function_name: "launch_helper"' t.pftxt || fail "no inline callstack on API slices"
python3 - t.pftxt <<'PY' || fail "a sample's callstack does not name burn_cpu"
import re, sys
t = open(sys.argv[1]).read()
names = dict(re.findall(r'function_names \{\s*iid: (\d+)\s*name: "([^"]*)"', t))
stacks = re.findall(r'callstacks \{\s*iid: \d+\s*((?:frame_ids: \d+\s*)+)\}', t)
ok = any([names.get(x) for x in re.findall(r'\d+', s)][-2:] == ["main", "burn_cpu"] for s in stacks)
sys.exit(0 if ok else 1)
PY

# the view: flame graphs and stacks in its data
"$HT" view t -o v.html || fail "view failed"
grep -q '"callstacks":{"cpu":{"total":' v.html || fail "no callstacks in the view's data"
grep -q '\["burn_cpu",[0-9]*,\[\]\]' v.html || fail "no burn_cpu in the flame graph data"
echo ok
