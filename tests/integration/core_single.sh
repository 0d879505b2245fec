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
# nothing of the hand-off is left: rings drained and removed, doorbell gone
[ -z "$(find t -name '.*')" ] || fail "left behind: $(find t -name '.*')"

# Ring mode (record drains the packets) and the program writing them itself
# (HETRACE_RING=0) give the same events; many packets so both wrap.
M=200000
"$HT" record -q --buffer 16K -o ring -- "$PROG" single $M || fail "ring record exited $?"
HETRACE_RING=0 "$HT" record -q --buffer 16K -o self -- "$PROG" single $M ||
	fail "self record exited $?"
HETRACE_RING=1 "$HT" record -o bad -- "$PROG" single 10 2>bad.err || fail "bad record exited $?"
grep -qx "hetrace: ignoring HETRACE_RING='1': expected 0 or 2 to 4096 packets; using 16" bad.err ||
	fail "HETRACE_RING=1: $(cat bad.err)"
for t in ring self bad; do
	dump $t $t.txt
	n=$M; [ $t = bad ] && n=10
	assert_eq "$(count ' counter name=i ' $t.txt)" $n "$t: counter events"
	awk '/ counter name=i / { split($6, v, "="); if (v[2] != n++) exit 1 }' $t.txt ||
		fail "$t: counter values out of order"
	assert_eq "$(count ' discarded 0$' $t.txt)" "$(count ' discarded ' $t.txt)" "$t: no discards"
	check_valid $t
done
echo "ok"
