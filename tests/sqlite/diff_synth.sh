# report --diff of two synthetic traces with a known change (synth_queues.c):
# in NEW kern_b runs 2600 ns instead of 2200 (+18.2%) and a region "extra"
# of 100 ns appears (8.3% of BASE's 1200 ns of regions); nothing else moves.
# --threshold makes the exit status 1 on a regression beyond it.
. "$(dirname "$0")/../integration/lib.sh"
SQ=$BUILD/bin/synth_queues
"$SQ" base queues || fail "synth_queues queues"
"$SQ" new queues-slow || fail "synth_queues queues-slow"
"$HT" report --diff base new --format json >d.json || fail "diff without a threshold: exit $?"
python3 - d.json <<'PY' || fail "diff values"
import json, sys
d = json.load(open(sys.argv[1]))
def eq(what, got, want):
    if got != want:
        print(f"{what}: got {got}, want {want}"); sys.exit(1)
eq("inputs", (d["base"], d["new"], d["threshold_pct"], d["regressions"]), ("base", "new", None, 0))
eq("critical paths", (d["base_critical_path_ns"], d["new_critical_path_ns"]), (11800, 11900))
rows = [(r["table"], r["name"], r["base"]["count"], r["new"]["count"], r["base"]["total_ns"],
         r["new"]["total_ns"], r["delta_ns"]) for r in d["rows"]]
eq("first rows, by the size of the change", rows[:2],
   [("kernel", "kern_b", 1, 1, 2200, 2600, 400), ("region", "extra", 0, 1, 0, 100, 100)])
eq("unchanged rows", sorted(r[:2] for r in rows[2:] if r[6] == 0), [
    ("api", "clEnqueueNDRangeKernel"), ("api", "clEnqueueReadBuffer"), ("api", "clFinish"),
    ("kernel", "kern_a"), ("kernel", "kern_c"), ("kernel", "kern_d(float*)"),
    ("region", "post"), ("region", "prep"), ("transfer", "copy_d2h")])
eq("rows", len(rows), 11)
b = d["rows"][0]
eq("kern_b ratio and means", (round(b["ratio"], 4), b["base"]["mean_ns"], b["new"]["mean_ns"]),
   (1.1818, 2200.0, 2600.0))
eq("a new row has no ratio", d["rows"][1]["ratio"], None)
fin = [r for r in d["rows"] if r["name"] == "clFinish"][0]
eq("clFinish", (fin["base"]["count"], fin["base"]["total_ns"], fin["ratio"]), (3, 8100, 1.0))
PY
# thresholds: 20% passes; 10% catches kern_b; 5% also the new region (8.3% of BASE's regions)
for case in "20 0 0" "10 1 1" "5 1 2"; do
	set -- $case
	rc=0
	"$HT" report --diff base new --threshold "$1" --format json >t$1.json || rc=$?
	assert_eq "$rc" "$2" "exit status at --threshold $1"
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["regressions"], sum(r["regressed"] for r in d["rows"]))' t$1.json)
	assert_eq "$n" "$3 $3" "regressions at --threshold $1"
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [r["name"] for r in d["rows"] if r["regressed"]] == ["kern_b", "extra"], d' t5.json ||
	fail "rows regressed at 5%"
rc=0
"$HT" report --diff base new --threshold 10 >d.txt || rc=$?
assert_eq "$rc" 1 "text exit status"
grep -qE '^  kernel +kern_b +1 +1 +2.200 us +2.600 us +2.200 us +2.600 us +\+400 ns +1.182  REGRESSED$' d.txt ||
	fail "text row: $(grep kern_b d.txt)"
grep -q '^1 row regressed beyond 10%' d.txt || fail "text verdict: $(tail -2 d.txt)"
grep -q '^span 11.900 us -> 12.000 us, critical path 11.800 us -> 11.900 us$' d.txt || fail "text header: $(sed -n 4p d.txt)"
"$HT" report --diff base new --format csv >d.csv || fail "csv diff"
grep -q '^kernel,kern_b,1,1,2200,2600,2200.0,2600.0,400,1.1818,0$' d.csv || fail "csv row: $(grep kern_b d.csv)"
grep -q '^region,extra,0,1,0,100,0.0,100.0,100,,0$' d.csv || fail "csv new row: $(grep extra d.csv)"
# the same trace twice: nothing changed, nothing regressed at 0%
"$HT" report --diff base base --threshold 0 --format csv >same.csv || fail "a trace against itself regressed"
[ "$(grep -c ',0,1.0000,0$' same.csv)" = 10 ] || fail "a trace against itself: $(cat same.csv)"
# bad input: one clear line, exit 1; usage errors exit 2
cp -r new bad
printf 'XXXX' | dd of=bad/100-synth/thread-101 conv=notrunc 2>/dev/null
rc=0
"$HT" report --diff base bad --threshold 10 >bad.out 2>bad.err || rc=$?
assert_eq "$rc" 1 "exit status for a corrupt trace"
assert_eq "$(wc -l <bad.err)" 1 "lines of error for a corrupt trace"
grep -q "bad/100-synth/thread-101: offset 0: bad packet magic" bad.err || fail "corrupt trace: $(cat bad.err)"
[ ! -s bad.out ] || fail "output for a corrupt trace: $(head -3 bad.out)"
rc=0
"$HT" report --diff base 2>usage.err || rc=$?
assert_eq "$rc" 2 "exit status for --diff with one trace"
rc=0
"$HT" report --diff base new --threshold lots 2>usage.err || rc=$?
assert_eq "$rc" 2 "exit status for a bad threshold"
grep -q "threshold takes a percentage" usage.err || fail "bad threshold: $(cat usage.err)"
echo "ok"
