# The example queries of docs/sqlite-schema.md run with the sqlite3 CLI on
# exports of a synthetic trace (whose answers are known) and of recorded
# programs (threads with OS states, a source's API calls with arguments).
. "$(dirname "$0")/../integration/lib.sh"
SRC=$2
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 CLI missing (Debian: sqlite3)"; exit 77; }
/usr/bin/python3 - "$SRC/docs/sqlite-schema.md" <<'PY' || fail "extracting the queries"
import re, sys
blocks = re.findall(r"^```sql\n(.*?)^```", open(sys.argv[1]).read(), re.M | re.S)
if len(blocks) < 10:
    sys.exit(f"only {len(blocks)} example queries in the docs")
for i, b in enumerate(blocks):
    open(f"query{i:02d}.sql", "w").write(b)
PY
"$BUILD/bin/synth_queues" q queues || fail "synth_queues"
"$HT" record -q -o th -- "$PROG" threads 3 2000 >th.out 2>&1 || fail "record threads: $(cat th.out)"
"$HT" record -q -o api -- "$PROG" api 50 >api.out 2>&1 || fail "record api: $(cat api.out)"
for t in q th api; do
	"$HT" export "$t" --format sqlite -o "$t.sqlite" 2>"$t.err" || fail "export $t: $(cat "$t.err")"
	: >"$t.all"
	for f in query*.sql; do
		sqlite3 -bail -batch "$t.sqlite" <"$f" >"$t.$f.out" 2>"$t.$f.err" ||
			fail "$f on $t: $(cat "$t.$f.err") -- $(head -3 "$f")"
		[ ! -s "$t.$f.err" ] || fail "$f on $t printed an error: $(cat "$t.$f.err")"
		cat "$t.$f.out" >>"$t.all"
	done
done
# known answers of the synthetic trace
for want in 'kern_a|1|8000|8000.0|8000' 'clFinish|3|8100|0' 'copy_d2h|1|4096|300|13.653' \
	'kern_d(float*)|clEnqueueNDRangeKernel|101|200|5600' 'depth|1|3.0|3.0|3.0' \
	'0xb2|3|' 'schema_version|2' '|mark|{"n":7,"what":"x"}|7'; do
	grep -qF -- "$want" q.all || fail "synthetic trace: no '$want' in the query results: $(cat q.all)"
done
# recorded programs: the thread names and counters, the API calls with their arguments
grep -qE '^[0-9]+\|worker-[0-9]\|running\|[0-9]+$' th.all || fail "threads: no running time per worker"
grep -qxF 'w|6000|0.0|2001999.0|1000999.5' th.all || fail "threads: counters: $(grep -E '^w\|' th.all)"
grep -qE '^fakeRead\|50\|[0-9]+\|49$' api.all || fail "api: fakeRead row: $(grep fakeRead api.all)"
got=$(sqlite3 api.sqlite "SELECT count(*), sum(json_extract(args, '\$.offset')), sum(status),
	min(json_extract(args, '\$.queue')), max(json_extract(args, '\$.size')) FROM api_calls a
	JOIN strings s ON s.id = a.function_id WHERE s.value = 'fakeRead' AND json_valid(args)")
assert_eq "$got" "50|-1225|-1225|0xdead0000|4096" "api: arguments as JSON"

echo "ok"
