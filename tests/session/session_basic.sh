#!/bin/bash
# hetrace session: programs given `session env` write nothing and behave
# byte-identically while no session runs; two programs started separately
# land in one session trace; a program started before `session start`
# records exactly the window (a run of consecutive ticks, its open packet
# taken at stop) and writes nothing after it; it joins a second session too.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib.sh"
. "$HERE/lib_session.sh"

echo "$SENV" | grep -q "^export LD_PRELOAD='.*/libhetrace.so.0:" || fail "env: no LD_PRELOAD: $SENV"
echo "$SENV" | grep -qx "export HETRACE_SESSION='default'" || fail "env: no HETRACE_SESSION: $SENV"
snapshot() { find "$WORK" -path "$WORK/snap*" -prune -o -printf '%P %s %m\n' | sort; md5sum "$WORK/ctl/default.ctl"; }

# --- no session: same output, same status, nothing written ---
snapshot >snap.before
"$SPROG" print a 'b c' >plain.out 2>plain.err
rc_plain=$?
(with_env "$SPROG" print a 'b c') >env.out 2>env.err
rc_env=$?
assert_eq "$rc_env" "$rc_plain" "exit status with the session variables"
cmp -s plain.out env.out || fail "stdout differs with the session variables"
cmp -s plain.err env.err || fail "stderr differs with the session variables: $(cat env.err)"
rm plain.out plain.err env.out env.err
snapshot >snap.after
diff snap.before snap.after >/dev/null || fail "a program wrote while no session ran: $(diff snap.before snap.after)"

# --- a program running before the session starts ---
start_running
sleep 0.2

"$HT" session start -o "$WORK/tr" 2>start.err || fail "session start failed: $(cat start.err)"
"$HT" session status >status.out || fail "status says no session: $(cat status.out)"
grep -q "recording into '$WORK/tr'" status.out || fail "status: $(cat status.out)"
"$HT" session start -o "$WORK/tr2" 2>again.err && fail "a second session of the same name started"
grep -q "is running already" again.err || fail "second start: $(cat again.err)"
[ ! -e "$WORK/tr2" ] || fail "the refused start left '$WORK/tr2'"
sleep 0.2
# --- two programs started separately, in the session ---
with_env "$SPROG" print b >/dev/null 2>&1 &
B=$!
wait $B
with_env "$SPROG" print c >/dev/null 2>&1 &
C=$!
wait $C
sleep 0.2
"$HT" session stop 2>stop.err || fail "session stop failed: $(cat stop.err)"
grep -q "trace written to '$WORK/tr'" stop.err || fail "stop: $(cat stop.err)"
"$HT" session status >status.out && fail "status after stop says running"
grep -q "not running" status.out || fail "status after stop: $(cat status.out)"

still_after tr "session stop"
[ -z "$(find tr -name '.*')" ] || fail "the daemon left files of the recording in the trace: $(find tr -name '.*')"

dump tr d1.txt
check_valid tr
bt2_read tr bt1.txt
# A runs on past the session: info says so rather than "crashed"; B and C exited
"$HT" info tr >info1.txt || fail "info on the session trace"
assert_eq "$(grep -c 'still running when the session ended' info1.txt)" 1 "processes still running at the stop"
assert_eq "$(grep -c 'exited, status not known' info1.txt)" 2 "processes that exited in the session"
for p in $B $C; do
	ticks d1.txt $p >t.$p
	assert_eq "$(wc -l <t.$p)" 1000 "ticks of program $p started in the session"
	assert_eq "$(head -1 t.$p),$(tail -1 t.$p)" "0,999" "first,last tick of program $p"
done
window d1.txt "first session"
F1=$F
T1=$T

# --- a second session: A joins again, into the new trace only ---
"$HT" session start -q -o "$WORK/tr3" || fail "second session start failed"
sleep 0.3
"$HT" session stop -q || fail "second session stop failed"
touch "$WORK/stopA"
wait $A
L=$(tail -1 a.out)
dump tr3 d3.txt
window d3.txt "second session"
F3=$F
T3=$T
[ "$F3" -gt "$T1" ] || fail "second window starts at $F3, not after the first ($T1)"
[ "$T3" -lt "$L" ] || fail "second window ends at $T3, not before the program's end ($L)"
ticks d1.txt $A | awk -v f="$F3" '$1 >= f { bad = 1 } END { exit bad }' ||
	fail "the first trace holds ticks of the second window"
echo "ok: windows [$F1, $T1] and [$F3, $T3] of 0..$L; two programs of 1000 ticks each"
