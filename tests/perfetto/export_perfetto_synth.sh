# Perfetto export of the synthetic trace (timeline in synth_trace.c): exact
# tracks, slices per track, args, the enqueue -> kernel flow and the clock.
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
"$BUILD/bin/synth_trace" t || fail "synth_trace failed"
export_ok t perfetto t.pftrace
pf_check t.pftrace d.txt
cat d.txt
T='thread 101'
Q='GPU 0 / queue 0xabc0'
assert_eq "$(count '^track ' d.txt)" 3 "tracks"
grep -qx 'track uuid=[0-9]* kind=process pid=100 tid=0 name="100-synth" parent=0' d.txt || fail "process track"
P=$(sed -n 's/^track uuid=\([0-9]*\) kind=process.*/\1/p' d.txt)
grep -qx "track uuid=[0-9]* kind=thread pid=100 tid=101 name=\"$T\" parent=$P" d.txt || fail "thread track"
grep -qx "track uuid=[0-9]* kind=custom pid=0 tid=0 name=\"$Q\" parent=$P" d.txt || fail "queue track"
assert_eq "$(count "^slice track=\"$T\" name=\"clFinish\" cat=\"api\"" d.txt)" 2 "clFinish slices"
assert_eq "$(count "^slice track=\"$T\" name=\"clEnqueueNDRangeKernel\" cat=\"api\"" d.txt)" 1 "enqueue slices"
assert_eq "$(count "^slice track=\"$T\" name=\"step\" cat=\"region\"" d.txt)" 2 "region slices"
assert_eq "$(count "^slice track=\"$T\"" d.txt)" 5 "slices on the thread"
assert_eq "$(count "^slice track=\"$Q\"" d.txt)" 2 "slices on the queue"
grep -qx "slice track=\"$T\" name=\"clFinish\" cat=\"api\" ts=1000003000 dur=6000 args={ret=0}" d.txt || fail "clFinish 1"
grep -qx "slice track=\"$T\" name=\"clFinish\" cat=\"api\" ts=1000010000 dur=100 args={ret=0}" d.txt || fail "clFinish 2"
grep -qx "slice track=\"$T\" name=\"clEnqueueNDRangeKernel\" cat=\"api\" ts=1000002000 dur=500 args={ret=0;corr=1}" d.txt || fail "enqueue"
grep -qx "slice track=\"$T\" name=\"step\" cat=\"region\" ts=1000001000 dur=8500 args={}" d.txt || fail "step 1"
grep -qx "slice track=\"$T\" name=\"step\" cat=\"region\" ts=1000020000 dur=1000 args={}" d.txt || fail "step 2"
grep -qx "slice track=\"$Q\" name=\"kern_a\" cat=\"kernel\" ts=1000004000 dur=4000 args={corr=1;global_work_size=1024;queued_ns=1000002200;submit_ns=1000002300;host_queue_wait_ns=100;device_queue_wait_ns=1700}" d.txt || fail "kern_a"
grep -qx "slice track=\"$Q\" name=\"copy_d2h\" cat=\"copy_d2h\" ts=1000012000 dur=1000 args={corr=2;bytes=1000000;queued_ns=1000011000;submit_ns=1000011500;host_queue_wait_ns=500;device_queue_wait_ns=500}" d.txt || fail "copy_d2h"
assert_eq "$(count '^flow ' d.txt)" 1 "flows"
grep -qx "flow from=\"clEnqueueNDRangeKernel\"@\"$T\" to=\"kern_a\"@\"$Q\"" d.txt || fail "flow enqueue -> kern_a"
grep -qx 'clock primary=3 snapshot=3:1000001000' d.txt || fail "clock snapshot: $(grep ^clock d.txt)"
grep -qx 'summary packets=21 sequences=3 tracks=3 slices=7 instants=0 counter_values=0 flows=1 errors=0' d.txt ||
	fail "summary: $(grep ^summary d.txt)"
# the wire itself: 3 sequences, each opened by one CLEARED|NEEDS packet; MONOTONIC defaults
assert_eq "$(grep -c 'sequence_flags: 3' named.txt)" 3 "sequences cleared"
assert_eq "$(grep -c 'timestamp_clock_id: 3' named.txt)" 3 "MONOTONIC defaults"
assert_eq "$(grep -c 'primary_trace_clock: 3' named.txt)" 1 "primary clock"
# enqueue and kern_a share one id; copy_d2h (corr 2) has no traced enqueue: a lone id
assert_eq "$(grep -c "flow_ids:" named.txt)" 3 "flow ids"
assert_eq "$(grep -c '^  interned_data' named.txt)" 5 "packets with interned data"
grep -q 'name: "clEnqueueNDRangeKernel"' named.txt || fail "event name not interned"
echo "ok"
