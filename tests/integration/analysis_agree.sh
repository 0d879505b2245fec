# One model, many views: the report and the Chrome export of the same
# trace agree on every count and total (kernels, transfers, API calls,
# regions), and the number of decoding threads changes nothing anyone reads.
. "$(dirname "$0")/lib.sh"
SRC=$2
export POCL_DEVICES=${POCL_DEVICES:-basic}
"$HT" record -q -o cl -- "$BUILD/bin/cl_loop" 20 >cl.out 2>&1 || fail "record cl_loop: $(cat cl.out)"
"$HT" record -q -o th -- "$PROG" threads 6 30000 >th.out 2>&1 || fail "record threads: $(cat th.out)"
"$HT" record -q -o si -- "$PROG" single 200000 >si.out 2>&1 || fail "record single: $(cat si.out)"
for t in cl si th; do
	"$HT" report "$t" --format json >"$t.json" || fail "report $t"
	"$HT" export "$t" --format chrome -o "$t.chrome.json" || fail "export $t"
	/usr/bin/python3 - "$t.json" "$t.chrome.json" "$SRC/tests/perfetto" <<'PY' || fail "$t: report and export disagree"
import collections, json, sys
sys.path.insert(0, sys.argv[3])
import chrome_check
r = json.load(open(sys.argv[1]))
doc, slices = chrome_check.load(sys.argv[2])
got = collections.defaultdict(lambda: [0, 0])
for s in slices:
    cat = s["cat"] or ""
    key = ("kernel" if cat == "kernel" else "api" if cat == "api" else
           "region" if cat == "region" else "transfer" if cat.startswith(("copy", "fill", "map", "unmap")) else None)
    if key:
        name = s["name"] if key != "transfer" else cat
        got[(key, name)][0] += 1
        got[(key, name)][1] += s["dur"]
want = collections.defaultdict(lambda: [0, 0])
for key, table in (("kernel", "kernels"), ("api", "api"), ("region", "regions"), ("transfer", "transfers")):
    for row in r.get(table, []):
        want[(key, row["name"])][0] += row["count"]
        want[(key, row["name"])][1] += row["total_ns"]
checked = 0
for k, (n, tot) in want.items():
    if k[0] == "transfer" and k[1] in ("marker", "barrier", "sync", "other"):
        continue
    if got[k][0] != n:
        print(f"{k}: report counts {n}, the export {got[k][0]}"); sys.exit(1)
    # the export keeps ns; a duration in the export is rounded once per slice
    if abs(got[k][1] - tot) > n:
        print(f"{k}: report totals {tot} ns, the export {got[k][1]} ns"); sys.exit(1)
    checked += 1
if checked < (3 if "cl" in sys.argv[1] else 1 if "si" in sys.argv[1] else 0):
    print(f"only {checked} rows compared: {dict(want)}"); sys.exit(1)
print(f"{sys.argv[1]}: {checked} rows agree")
PY
	# any number of decoding threads: byte-identical outputs
	for w in 0 1 3; do
		HETRACE_ANALYSIS_THREADS=$w "$HT" report "$t" >"$t.r$w" || fail "report with $w workers"
		HETRACE_ANALYSIS_THREADS=$w "$HT" export "$t" --format chrome -o "$t.c$w.json" || fail "export with $w workers"
		HETRACE_ANALYSIS_THREADS=$w "$HT" info "$t" >"$t.i$w" || fail "info with $w workers"
	done
	for w in 1 3; do
		cmp -s "$t.r0" "$t.r$w" || fail "$t: report differs with $w workers: $(diff "$t.r0" "$t.r$w" | head -5)"
		cmp -s "$t.c0.json" "$t.c$w.json" || fail "$t: export differs with $w workers"
		cmp -s "$t.i0" "$t.i$w" || fail "$t: info differs with $w workers"
	done
done
# a bad variable: one line that names it (not as a file of the trace), no output
for cmd in report info "export --format chrome -o bad.json"; do
	HETRACE_ANALYSIS_THREADS=lots "$HT" ${cmd%% *} cl ${cmd#"${cmd%% *}"} >bad.out 2>&1 &&
		fail "$cmd: a bad HETRACE_ANALYSIS_THREADS was accepted"
	assert_eq "$(cat bad.out)" "hetrace: HETRACE_ANALYSIS_THREADS='lots' is not a number of threads from 0 to 64" \
		"$cmd: the message for a bad HETRACE_ANALYSIS_THREADS"
	[ ! -e bad.json ] || fail "$cmd: wrote a file"
done
echo "ok"
