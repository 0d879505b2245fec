# A context-switch-heavy thread that records almost nothing itself. Per
# thread, it has no packet switch to drain its ring at: the kernel drops
# records, and the loss is counted and reported. Per CPU, `record` drains
# the rings and loses nothing, unless it is stopped (SIGSTOP) long enough
# for them to fill: then that loss is counted. Either way what was kept is
# consistent (gaps only where records were lost).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/oslib.sh"

# lost_in TRACE DUMP: OS records lost, as the dump, info and report say
lost_in() {
	local lost
	$CHECK invariants "$2" >inv.txt || fail "invariants: $(cat inv.txt)"
	lost=$(sed 's/.*lost=\([0-9]*\).*/\1/' inv.txt)
	"$HT" report "$1" --format json >r.json || fail "report failed"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["os"]["lost"] == int(sys.argv[2]), r["os"]["lost"]' r.json "$lost" ||
		fail "report lost OS records"
	echo "$lost"
}

record_os -q -o t -- "$OSP" pingpong 60000 0 || fail "record exited $?"
need_perf t
dump t d.txt
lost=$(lost_in t d.txt) || exit 1
if [ "$OS_METHOD" = thread ]; then
	assert_ge "$lost" 1 "lost OS records in the trace (per thread)"
	"$HT" info t | grep -qE "lost .*, [0-9]+ OS records" || fail "info lost OS records"
	"$HT" report t | grep -q 'lost  .* OS records' || fail "text report lost line"
	echo "ok: $lost records lost per thread"
	exit 0
fi
assert_eq "$lost" 0 "OS records lost per CPU"
n=$(grep -c ' cpu_state ' d.txt)
assert_ge "$n" 200000 "CPU-state intervals of 60000 round trips (4 switches each)"

# record stopped for 2 s while the ping-pong runs: the per-CPU rings fill up
"$HT" record -q -o s -- "$OSP" pingpong 150000 0 &
rec=$!
sleep 0.5
kill -STOP $rec
sleep 2
kill -CONT $rec
wait $rec || fail "record (stopped) exited $?"
dump s e.txt
lost=$(lost_in s e.txt) || exit 1
assert_ge "$lost" 1 "lost OS records while record was stopped"
"$HT" info s | grep -qE "lost .*, [0-9]+ OS records" || fail "info lost OS records"
echo "ok: none lost per CPU ($n intervals), $lost lost while record was stopped"
