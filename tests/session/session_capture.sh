#!/bin/bash
# Capture ranges cut exactly: by region name (the first range, or every one
# with --capture-range-end=repeat), by hetrace_start/hetrace_stop, and by
# time (--delay/--duration, for record and for a session): only what lies
# inside is in the trace, a run of consecutive ticks.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib.sh"
. "$HERE/lib_session.sh"

# regions N: round r has ticks 20r..20r+9 in "warmup", 20r+10..20r+19 in "step"
"$HT" record -q -o r1 --capture-range=region:step -- "$SPROG" regions 5 || fail "record (region, stop) failed"
dump r1 d1.txt
ticks d1.txt '[0-9]+' | tr '\n' ' ' >t1
assert_eq "$(cat t1)" "$(seq -s ' ' 10 19) " "ticks inside the first 'step' region"
assert_eq "$(count 'region_begin name=step' d1.txt),$(count 'region_end name=step' d1.txt)" "1,1" "step regions recorded"
assert_eq "$(count 'name=warmup' d1.txt)" 0 "warmup regions recorded"
bt2_read r1 bt1.txt

"$HT" record -q -o r2 --capture-range=region:step --capture-range-end=repeat -- "$SPROG" regions 5 ||
	fail "record (region, repeat) failed"
dump r2 d2.txt
ticks d2.txt '[0-9]+' | tr '\n' ' ' >t2
assert_eq "$(cat t2)" "$(for r in 0 1 2 3 4; do seq -s ' ' $((20 * r + 10)) $((20 * r + 19)) | tr '\n' ' '; done)" \
	"ticks inside every 'step' region"
assert_eq "$(count 'region_begin name=step' d2.txt)" 5 "step regions recorded (repeat)"
assert_eq "$(count 'name=warmup' d2.txt)" 0 "warmup regions recorded (repeat)"

"$HT" record -q -o r3 --capture-range=api -- "$SPROG" api 100 || fail "record (api) failed"
dump r3 d3.txt
ticks d3.txt '[0-9]+' | tr '\n' ' ' >t3
assert_eq "$(cat t3)" "$(seq -s ' ' 10 109) " "ticks between hetrace_start and hetrace_stop"
# two api ranges: the first only, or both with repeat
"$HT" record -q -o r3b --capture-range=api -- "$SPROG" api 20 2 || fail "record (api, stop) failed"
dump r3b d3b.txt
assert_eq "$(ticks d3b.txt '[0-9]+' | tr '\n' ' ')" "$(seq -s ' ' 10 29) " "ticks of the first api range"
"$HT" record -q -o r3c --capture-range=api --capture-range-end=repeat -- "$SPROG" api 20 2 ||
	fail "record (api, repeat) failed"
dump r3c d3c.txt
assert_eq "$(ticks d3c.txt '[0-9]+' | tr '\n' ' ')" "$(seq -s ' ' 10 29) $(seq -s ' ' 40 59) " \
	"ticks of both api ranges"
# without a range, hetrace_stop pauses a plain recording
"$HT" record -q -o r4 -- "$SPROG" api 100 || fail "record (plain, api) failed"
dump r4 d4.txt
ticks d4.txt '[0-9]+' | tr '\n' ' ' >t4
assert_eq "$(cat t4)" "$(seq -s ' ' 0 109) " "ticks of a plain recording paused by hetrace_stop"

# NVTX push/pop ranges (NVTX injection, no GPU needed)
if [ -x "$BUILD/bin/session_nvtx" ]; then
	"$HT" record -q -o r6 --capture-range=nvtx:step --capture-range-end=repeat -- \
		"$BUILD/bin/session_nvtx" 3 || fail "record (nvtx) failed"
	dump r6 d6.txt
	ticks d6.txt '[0-9]+' | tr '\n' ' ' >t6
	assert_eq "$(cat t6)" "$(for r in 0 1 2; do seq -s ' ' $((20 * r + 10)) $((20 * r + 19)) | tr '\n' ' '; done)" \
		"ticks inside every NVTX range 'step'"
	assert_eq "$(count 'region_begin name=step' d6.txt),$(count 'name=warmup' d6.txt)" "3,0" \
		"NVTX ranges recorded"
	"$HT" record -q -o r7 --capture-range=nvtx:step -- "$BUILD/bin/session_nvtx" 3 || fail "record (nvtx, stop) failed"
	dump r7 d7.txt
	ticks d7.txt '[0-9]+' | tr '\n' ' ' >t7
	assert_eq "$(cat t7)" "$(seq -s ' ' 10 19) " "ticks inside the first NVTX range 'step'"
	assert_eq "$(count 'region_begin name=step' d7.txt)" 1 "NVTX ranges recorded (stop)"
fi

# bad values: a line naming the option (then the usage hint), usage status, nothing recorded
for bad in "--capture-range=cudaProfiler" "--capture-range=nvtx:" "--capture-range=region:" "--capture-range=foo" \
	"--capture-range-end=stop" "--delay=-1" "--duration=0" "--delay=x"; do
	"$HT" record -o bad $bad -- true 2>bad.err
	assert_eq "$?" 2 "exit status of record $bad"
	opt=${bad%%=*}
	head -1 bad.err | grep -q -- "^hetrace record: $opt" || fail "error for $bad: $(head -1 bad.err)"
	[ ! -e bad ] || fail "record $bad left a trace directory"
done

for r in api cudaProfilerApi; do
	"$HT" session start -o bad --capture-range=$r 2>bad.err
	assert_eq "$?" 2 "exit status of session start --capture-range=$r"
	head -1 bad.err | grep -q "is for record" || fail "session start --capture-range=$r: $(head -1 bad.err)"
	[ ! -e bad ] || fail "the refused session start left a trace directory"
done

# a session's region ranges, in a program running already: each program
# switches for itself (rounds of 10 ticks in "warmup", 10 in "step")
with_env "$SPROG" regions-run "$WORK/stopR" >r.out 2>r.err &
R=$!
background $R
for _ in $(seq 100); do grep -q ready r.out && break; sleep 0.05; done
with_env "$SPROG" regions-run "$WORK/stopR" >r2.out 2>r2.err &
R2=$!
background $R2
"$HT" session start -q -o "$WORK/sr" --capture-range=region:step || fail "session start (region) failed"
sleep 0.5
"$HT" session stop -q || fail "session stop (region) failed"
"$HT" session start -q -o "$WORK/srr" --capture-range=nvtx:step --capture-range-end=repeat ||
	fail "session start (region, repeat) failed"
sleep 0.5
"$HT" session stop -q || fail "session stop (region, repeat) failed"
touch "$WORK/stopR"
wait $R $R2
dump sr dsr.txt
for p in $R $R2; do
	ticks dsr.txt $p >tr.$p
	f=$(head -1 tr.$p)
	[ -n "$f" ] || fail "session region range: program $p recorded nothing"
	assert_eq "$(($f % 20)),$(wc -l <tr.$p),$(tail -1 tr.$p)" "10,10,$((f + 9))" \
		"session region range of program $p: first % 20, ticks, last"
	assert_eq "$(grep "^$p-" dsr.txt | grep -c 'region_begin name=step'),$(grep "^$p-" dsr.txt | grep -c 'name=warmup')" \
		"1,0" "regions of program $p in the session range"
done
dump srr dsrr.txt
ticks dsrr.txt $R >trr
[ "$(wc -l <trr)" -ge 20 ] || fail "session repeat: $(wc -l <trr) ticks"
awk '$1 % 20 < 10 { print "outside: " $1; bad = 1 } END { exit bad }' trr || fail "session repeat: ticks outside the step ranges"

# time: the window is in the index; every event lies inside it
within() { # DUMP INDEX: counter times within [capture_start_ns, capture_end_ns + 1 ms]
	s=$(sed -n 's/^capture_start_ns=//p' "$2")
	e=$(sed -n 's/^capture_end_ns=//p' "$2")
	[ -n "$s" ] && [ "$s" -gt 0 ] && [ "$e" -gt "$s" ] || fail "no capture window in $2: $(cat "$2")"
	awk -v s="$s" -v e="$e" '$4 == "counter" { n++; if ($3 < s || $3 > e + 1000000) bad++; if (!f) f = $3; l = $3 }
		END { printf "%d %d %.0f %.0f\n", n, bad, (f - s) / 1e6, (e - l) / 1e6; exit bad > 0 }' "$1" ||
		fail "events outside the capture window of $2"
}
(sleep 1.2 && touch "$WORK/stop5") &
"$HT" record -q -o r5 --delay 0.3 --duration 0.4 -- "$SPROG" run "$WORK/stop5" >r5.out || fail "record (time) failed"
dump r5 d5.txt
ticks d5.txt '[0-9]+' >t5
F=$(head -1 t5)
T=$(tail -1 t5)
L=$(tail -1 r5.out)
[ -n "$F" ] && [ "$F" -gt 0 ] && [ "$T" -lt "$L" ] || fail "time window [$F, $T] of 0..$L"
assert_eq "$(wc -l <t5)" $((T - F + 1)) "ticks of the time window are consecutive"
read -r n bad lead trail <<<"$(within d5.txt r5/hetrace.index)"
[ "$lead" -le 20 ] && [ "$trail" -le 20 ] || fail "the window's first/last events are $lead/$trail ms inside it"
[ ! -e r5/.control ] || fail "record left its control page in the trace"

# a session's time window, on a program running already
start_running
"$HT" session start -q -o "$WORK/s1" --delay 0.2 --duration 0.3 || fail "session start (time) failed"
"$HT" session status | grep -q "waiting (capture range)" || fail "status during --delay: $("$HT" session status)"
sleep 0.9
"$HT" session stop -q || fail "session stop failed"
touch "$WORK/stopA"
wait $A
dump s1 ds.txt
window ds.txt "session time window"
first=$(awk '$4 == "counter" { print $3; exit }' ds.txt)
last=$(awk '$4 == "counter" { l = $3 } END { print l }' ds.txt)
span=$(((last - first) / 1000000))
[ "$span" -ge 250 ] && [ "$span" -le 320 ] || fail "session window spans $span ms, not 300"
echo "ok: regions, api, record window [$F..$T] of $L, session window $span ms"
