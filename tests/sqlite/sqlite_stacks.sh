# The SQLite export's calling contexts and CPU samples (call_stacks,
# stack_frames, cpu_samples, api_calls.callstack_id) on a recorded program
# (tests/sampling's cs_prog: two call paths launching two kernels through one
# helper, a CPU-bound function, a dlopen'ed plugin), checked exactly against
# `report --format json` (cpu_samples, calling_contexts).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/sqlib.sh"
SRC=$2
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import sqlite3" 2>/dev/null ||
	{ echo "SKIP: python3 sqlite3 module missing"; exit 77; }
. "$(dirname "$0")/../sampling/samplib.sh"

"$HT" record -q -o t -- "$CS" 10 600 "$PLUGIN" >out.txt 2>err.txt || fail "record failed: $(cat err.txt)"
grep -q "cs_prog: done" out.txt || fail "cs_prog did not finish: $(cat out.txt)"
"$HT" export t --format sqlite -o t.sqlite 2>err.txt || fail "export: $(cat err.txt)"
"$HT" report --format json t >r.json || fail "report json failed"
/usr/bin/python3 - t.sqlite r.json <<'PY' || fail "stacks and samples differ from the report"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
d = json.load(open(sys.argv[2]))
def q(sql, *a):
    return db.execute(sql, a).fetchall()
def fail(m):
    sys.exit("FAIL: " + m)
# every sample is a row, each with its calling context
n, with_stack = q("SELECT count(*), count(stack_id) FROM cpu_samples")[0]
if n != d["cpu_samples"]["total"] or n < 50:
    fail(f"cpu_samples: {n} rows, the report counts {d['cpu_samples']['total']}")
if with_stack != n:
    fail(f"{n - with_stack} samples without a stack")
# self samples per function: the innermost source frame of each sample; as
# the report leaves hetrace's own frames out, a sample in them counts for its
# caller there
node = {i: (parent, mod) for i, parent, mod in q("""SELECT c.id, c.parent_id, m.value
    FROM call_stacks c LEFT JOIN strings m ON m.id = c.module_id""")}
inner = dict(q("""SELECT f.stack_id, s.value FROM stack_frames f JOIN strings s ON s.id = f.function_id
    WHERE f.level = 0"""))
self = {}
for (sid,) in q("SELECT stack_id FROM cpu_samples"):
    while sid and node[sid][1] and node[sid][1].rsplit("/", 1)[-1].startswith("libhetrace"):
        sid = node[sid][0]
    if sid:
        self[inner[sid]] = self.get(inner[sid], 0) + 1
for f in d["cpu_samples"]["functions"]:
    if f["self"] and self.get(f["name"]) != f["self"]:
        fail(f"self samples of {f['name']}: {self.get(f['name'])} rows, {f['self']} in the report")
# API calls with a stack: those of the launch paths, one row per call
launches = sum(c["calls"] for c in d["calling_contexts"]
               if c["frames"][-1] == "clEnqueueNDRangeKernel")
got = q("""SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.function_id
    WHERE s.value = 'clEnqueueNDRangeKernel' AND a.callstack_id IS NOT NULL""")[0][0]
if got != launches or launches != 21:
    fail(f"launches with a stack: {got} rows, {launches} in the report's calling contexts (21)")
# the tree: a caller's id is smaller, every parent exists, in the same process
bad = q("""SELECT count(*) FROM call_stacks c LEFT JOIN call_stacks p ON p.id = c.parent_id
    WHERE c.parent_id IS NOT NULL AND (p.id IS NULL OR p.id >= c.id OR p.process_id <> c.process_id)""")[0][0]
if bad:
    fail(f"{bad} call_stacks rows with a bad parent")
if q("SELECT count(*) FROM call_stacks c WHERE NOT EXISTS (SELECT 1 FROM stack_frames f WHERE f.stack_id = c.id)")[0][0]:
    fail("call_stacks nodes without frames")
# each launch path, walked up from the call: the report's frames are a subsequence
paths = {}
for (sid,) in q("""SELECT DISTINCT a.callstack_id FROM api_calls a JOIN strings s ON s.id = a.function_id
        WHERE s.value = 'clEnqueueNDRangeKernel' AND a.callstack_id IS NOT NULL"""):
    names = [r[0] for r in q("""WITH RECURSIVE up(id, depth) AS (SELECT ?, 0
        UNION ALL SELECT c.parent_id, up.depth + 1 FROM call_stacks c JOIN up ON c.id = up.id
        WHERE c.parent_id IS NOT NULL)
        SELECT s.value FROM up JOIN stack_frames f ON f.stack_id = up.id
        JOIN strings s ON s.id = f.function_id ORDER BY up.depth DESC, f.level DESC""", sid)]
    paths[sid] = names
def has(names, want):
    it = iter(names)
    return all(w in it for w in want)
for want in (["main", "phase_a", "launch_helper"], ["main", "phase_b", "launch_helper"],
             ["main", "plugin_run", "plugin_launch", "cs_launch"]):
    if not any(has(p, want) for p in paths.values()):
        fail(f"no call stack with {want}: {list(paths.values())}")
# frames carry their source: burn_cpu's samples resolve to cs_prog.c lines
r = q("""SELECT count(*), min(f.line), max(fl.value) FROM cpu_samples x
    JOIN stack_frames f ON f.stack_id = x.stack_id AND f.level = 0
    JOIN strings s ON s.id = f.function_id LEFT JOIN strings fl ON fl.id = f.file_id
    WHERE s.value = 'burn_cpu'""")[0]
if not r[0] or not r[1] or not r[2].endswith("tests/sampling/cs_prog.c"):
    fail(f"burn_cpu's samples: {r}")
# the process exited with 0, by itself
if q("SELECT exit_code, exit_signal FROM processes") != [(0, None)]:
    fail(f"processes' exits: {q('SELECT pid, exit_code, exit_signal FROM processes')}")
print(f"ok: {n} samples, {len(self)} functions, {launches} launches with stacks, "
      f"{q('SELECT count(*) FROM call_stacks')[0][0]} nodes")
PY
doc_queries t.sqlite
grep -qE '^burn_cpu\|[0-9]+$' t.sqlite.queries || fail "the samples-per-function query: no burn_cpu row"
echo "ok"
