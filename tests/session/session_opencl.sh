#!/bin/bash
# An OpenCL program that runs through two sessions: its API calls and its
# device commands (kernels, reads, with device times) land in each trace,
# inside each window, and the device queue's stream of the first session is
# followed by one in the second.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib.sh"
CL=$BUILD/bin/session_cl
[ -x "$CL" ] || { echo "skip: session_cl not built (no OpenCL headers)"; exit 77; }
. "$HERE/lib_session.sh"

"$HT" session start -q -o "$WORK/s1" || fail "session start failed"
with_env "$CL" "$WORK/stop" >cl.out 2>cl.err &
P=$!
background $P
for _ in $(seq 200); do grep -q ready cl.out && break; sleep 0.05; done
grep -q ready cl.out || { grep -q "no OpenCL device" cl.err && exit 77; fail "session_cl did not start: $(cat cl.err)"; }
sleep 0.3
"$HT" session stop -q || fail "first stop failed"
sleep 0.2
"$HT" session start -q -o "$WORK/s2" || fail "second start failed"
sleep 0.4
"$HT" session stop -q || fail "second stop failed"
touch "$WORK/stop"
wait $P || fail "session_cl failed: $(cat cl.err)"

for t in s1 s2; do
	check_valid $t
	dump $t d.$t
	k=$(grep "^$P-" d.$t | grep -c " device_command .*kind=kernel")
	r=$(grep "^$P-" d.$t | grep -c " device_command .*kind=copy_d2h")
	[ "$k" -ge 20 ] && [ "$r" -ge 20 ] || fail "$t: $k kernels and $r reads of the running program"
	c=$(grep "^$P-" d.$t | grep -c " api_begin ")
	[ "$c" -ge 40 ] || fail "$t: $c API calls"
	ls $t/$P-*/ | grep -q "^device-" || fail "$t: no device stream: $(ls $t/$P-*/)"
done
# each trace's commands lie within its own window: s2's all come after s1's
last1=$(grep "^$P-" d.s1 | awk '$4 == "device_command" { l = $3 } END { print l }')
first2=$(grep "^$P-" d.s2 | awk '$4 == "device_command" { print $3; exit }')
[ "$first2" -gt "$last1" ] || fail "the second trace holds commands of the first window"
echo "ok: device commands in both sessions"
