# Discard accounting: with the stream file capped (RLIMIT_FSIZE), events
# that find no room are dropped and counted exactly; the app runs on.
. "$(dirname "$0")/lib.sh"
N=200000
# --no-os: CPU-state records would add discards of their own to the count
(ulimit -f 256 && exec "$HT" record -q --no-os --buffer 16K -o t -- "$PROG" big $N) 2>err.txt
assert_eq "$?" 0 "app exit status"
grep -q "events are dropped and counted, the program runs on" err.txt || fail "no warning: $(cat err.txt)"
assert_eq "$(grep -c hetrace: err.txt)" 1 "one warning line"
dump t d.txt
got=$(count ' counter name=big ' d.txt)
lost=$(awk '$2 ~ /^thread-/ && $4 == "discarded" { print $5 }' d.txt)
assert_ge "$lost" 1 "discarded events"
assert_eq "$((got + lost))" $N "recorded + discarded"
awk '/ counter name=big / { split($6, v, "="); if (v[2] != n++) exit 1 }' d.txt || fail "recorded events are not the first ones"
"$HT" info t >info.txt
grep -q "lost        $lost events discarded" info.txt || fail "info: $(grep lost info.txt)"
check_valid t
babeltrace2 t >/dev/null 2>b.err || fail "babeltrace2 failed"
grep -q "discarded $lost events" b.err || fail "babeltrace2 did not report the loss: $(cat b.err)"

# A thread that can get no stream (no file descriptor left for it): its
# events are counted in the process stream's events_discarded, which
# babeltrace2 reports, and the lost record says why.
"$HT" record -q --no-os -o ns -- prlimit --nofile=8 "$PROG" single 5 2>err2.txt
assert_eq "$?" 0 "no stream: app exit status"
grep -q "thread stream': Too many open files" err2.txt || fail "no stream: $(cat err2.txt)"
dump ns d2.txt
nost=$(awk '$4 == "lost" && $5 == "kind=no_stream" { split($6, v, "="); print v[2] }' d2.txt)
assert_ge "${nost:-0}" 1 "no stream: lost record"
assert_eq "$(awk '$1 ~ /-annot_prog$/ && $2 == "process" && $4 == "discarded" { print $5 }' d2.txt)" "$nost" \
	"no stream: the process stream's events_discarded"
"$HT" info ns | grep -q "^total .*, $nost lost" || fail "no stream: info: $("$HT" info ns | tail -1)"
babeltrace2 ns >/dev/null 2>b2.err || fail "no stream: babeltrace2 failed"
grep -q 'discarded .*within stream ".*/process"' b2.err ||
	fail "no stream: babeltrace2 did not report the loss: $(cat b2.err)"
echo "ok"
