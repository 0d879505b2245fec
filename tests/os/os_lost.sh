# A context-switch-heavy thread that records almost nothing itself has no
# packet switch to drain its ring at: the kernel drops records, and the loss
# is counted and reported; what was kept is still consistent.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/oslib.sh"
"$HT" record -q -o t -- "$OSP" pingpong 60000 0 || fail "record exited $?"
need_perf t
dump t d.txt
$CHECK invariants d.txt >inv.txt || fail "invariants: $(cat inv.txt)"
lost=$(sed 's/.*lost=\([0-9]*\).*/\1/' inv.txt)
assert_ge "$lost" 1 "lost OS records in the trace"
"$HT" info t | grep -qE "lost .*, [0-9]+ OS records" || fail "info lost OS records"
"$HT" report t --format json >r.json || fail "report failed"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["os"]["lost"] == int(sys.argv[2]), r["os"]["lost"]' r.json "$lost" ||
	fail "report lost OS records"
"$HT" report t | grep -q 'lost  .* OS records' || fail "text report lost line"
echo "ok"
