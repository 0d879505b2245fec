# One thread: exact counts and values, read by our reader and babeltrace2.
. "$(dirname "$0")/lib.sh"
N=1000
"$HT" record -q -o t -- "$PROG" single $N || fail "record exited $?"
dump t d.txt
monotonic d.txt
assert_eq "$(count ' region_begin name=loop$' d.txt)" $N "region_begin events"
assert_eq "$(count ' region_end name=loop$' d.txt)" $N "region_end events"
assert_eq "$(count ' counter name=i ' d.txt)" $N "counter events"
# counter values are 0..N-1 in order
awk '/ counter name=i / { split($6, v, "="); if (v[2] != n++) { print "bad " $0; exit 1 } }' d.txt ||
	fail "counter values out of order"
assert_eq "$(count ' instant name=done args=n:1000,tag:ok,half:500$' d.txt)" 1 "instant with args"
assert_eq "$(count ' thread_info tid=[0-9]+ name="main-thread"$' d.txt)" 1 "thread name"
assert_eq "$(count ' process_info ' d.txt)" 1 "process_info"
assert_eq "$(count ' clock_anchor kind=exit ' d.txt)" 1 "exit anchor"
assert_eq "$(count ' discarded 0$' d.txt)" "$(count ' discarded ' d.txt)" "no discards"
check_valid t
bt2_read t b.txt
assert_eq "$(count 'hetrace:region_begin:' b.txt)" $N "babeltrace2 region_begin"
assert_eq "$(count 'hetrace:counter:' b.txt)" $N "babeltrace2 counter"
assert_eq "$(count 'procname = "annot_prog"' b.txt)" "$(wc -l <b.txt)" "babeltrace2 procname on every event"
"$HT" info t >info.txt || fail "info failed"
grep -q "total       1 process, 1 thread, " info.txt || fail "info totals: $(tail -1 info.txt)"
grep -qE "region_begin $N, region_end $N, instant 1, counter $N" info.txt || fail "info counts: $(cat info.txt)"
echo "ok"
