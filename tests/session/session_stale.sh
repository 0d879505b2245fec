#!/bin/bash
# A session daemon killed with SIGKILL is found by the next `status` (and
# `start`): recording stops in the programs still running, the trace they
# wrote is finalized and reads, and a new session starts.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib.sh"
. "$HERE/lib_session.sh"

start_running

daemon_pid() { "$HT" session status | sed -n 's/.*daemon pid \([0-9]*\).*/\1/p'; }

# --- killed, found by status ---
"$HT" session start -q -o "$WORK/tr" || fail "session start failed"
D=$(daemon_pid)
[ -n "$D" ] && alive "$D" || fail "no daemon after start"
sleep 0.3
kill -KILL "$D"
gone "$D" || fail "the daemon survived SIGKILL"
"$HT" session status >status.out 2>status.err && fail "status says running after the daemon died"
grep -q "its daemon had died; cleaned up" status.out || fail "status: $(cat status.out)"
grep -q "daemon (pid $D) had died" status.err || fail "status said nothing of the dead daemon: $(cat status.err)"
"$HT" session status >status2.out && fail "status says running after the cleanup"
grep -qx "session 'default': not running" status2.out || fail "second status: $(cat status2.out)"

# the trace reads, A's window in it; nothing more is written
still_after tr "the cleanup"
grep -q "^exit=daemon died" tr/hetrace.index || fail "index does not say how it ended: $(cat tr/hetrace.index)"
check_valid tr
dump tr d1.txt
window d1.txt "stale session"

# --- killed, found by the next start ---
"$HT" session start -q -o "$WORK/tr2" || fail "start after cleanup failed"
D=$(daemon_pid)
kill -KILL "$D"
gone "$D" || fail "the daemon survived SIGKILL"
"$HT" session start -o "$WORK/tr3" 2>start.err || fail "start after a killed daemon failed: $(cat start.err)"
grep -q "had died" start.err || fail "start said nothing of the dead daemon: $(cat start.err)"
check_valid tr2
D=$(daemon_pid)
[ -n "$D" ] || fail "no daemon after the new start"
sleep 0.2
"$HT" session stop -q || fail "stop failed"
gone "$D" || fail "the daemon outlived stop"
ticks <(dump tr3 /dev/stdout) $A | head -1 | grep -q . || fail "the running program did not join the new session"
touch "$WORK/stopA"
wait $A
echo "ok: stale window [$F, $T]"
