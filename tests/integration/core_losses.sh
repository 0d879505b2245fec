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
echo "ok"
