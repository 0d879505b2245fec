# A thread blocked in read() on a pipe for 200 ms shows a blocked interval of
# about that length inside its "wait" region; intervals never overlap and
# cover the thread; babeltrace2 reads the new event classes.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/oslib.sh"
record_os -q -o t -- "$OSP" block 200 || fail "record exited $?"
need_perf t
dump t d.txt
monotonic d.txt
$CHECK invariants d.txt >inv.txt || fail "invariants: $(cat inv.txt)"
read -r blocked region < <($CHECK state d.txt blocker wait blocked) || fail "no blocked state"
echo "blocked $blocked ms of a $region ms region (induced: 200 ms)"
at_least "$blocked" 140 "blocked ms in the region (70% of 200)"
at_most "$blocked" "$region" "blocked ms vs the region"
read -r pre _ < <($CHECK state d.txt blocker wait preempted)
at_most "$pre" 30 "preempted ms while blocked in read()"
check_valid t
bt2_read t b.txt
assert_ge "$(count 'hetrace:cpu_state:' b.txt)" 3 "babeltrace2 cpu_state events"
"$HT" report t >r.txt || fail "report failed"
grep -qE '^  [0-9]+ +[0-9]+ +blocker ' r.txt || fail "report CPU-state row: $(cat r.txt)"
echo "ok"
