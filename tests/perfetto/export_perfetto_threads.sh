# Perfetto export of a recorded multi-threaded program: annot_prog threads 4
# 1000 gives 4 thread tracks named worker-K, each with a counter track "w"
# holding exactly its 1000 values (K*1e6 .. K*1e6+999).
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
"$HT" record -o r -- "$PROG" threads 4 1000 >rec.out 2>&1 || fail "record failed: $(cat rec.out)"
export_ok r perfetto r.pftrace
pf_check r.pftrace d.txt
grep -E '^(track|counters|summary|clock)' d.txt
for k in 0 1 2 3; do
	assert_eq "$(count "^track uuid=[0-9]+ kind=thread pid=[0-9]+ tid=[0-9]+ name=\"worker-$k\" parent=[0-9]+$" d.txt)" 1 "thread track worker-$k"
	grep -qx "counters track=\"w\" parent=\"worker-$k\" n=1000 first=$((k * 1000000)) last=$((k * 1000000 + 999))" d.txt ||
		fail "counter track of worker-$k: $(grep "parent=\"worker-$k\"" d.txt)"
done
assert_eq "$(count '^counters ' d.txt)" 4 "counter tracks"
grep -qE '^summary .* counter_values=4000 flows=0 errors=0$' d.txt || fail "summary: $(grep ^summary d.txt)"
# the session's start anchors from the index: MONOTONIC primary, REALTIME alongside
mono=$(sed -n 's/^start_monotonic_ns=//p' r/hetrace.index)
real=$(sed -n 's/^start_realtime_ns=//p' r/hetrace.index)
grep -qx "clock primary=3 snapshot=3:$mono,1:$real" d.txt || fail "clock: $(grep ^clock d.txt)"
echo "ok"
