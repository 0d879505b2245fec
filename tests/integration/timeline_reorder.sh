# The reorder window (seed 000 §3.3.2): device commands collected in the
# reverse of their device order come out of the timeline in device-time
# order, each only once every earlier-enqueued command has been seen.
. "$(dirname "$0")/lib.sh"
"$BUILD/bin/synth_trace" t reorder || fail "synth_trace failed"
"$BUILD/bin/ht_test_timeline" t >tl.txt || fail "timeline failed"
# device records, in output order: their corr and start times
awk '/^device / { for (i = 1; i <= NF; i++) { if ($i ~ /^corr=/) c = substr($i, 6); if ($i ~ /^ts=/) t = substr($i, 4) }
	print c, t }' tl.txt >dev.txt
assert_eq "$(cut -d' ' -f1 dev.txt | tr '\n' ' ')" "1 2 10 11 12 " "device commands in device-time order"
sort -n -k2 -c dev.txt || fail "device start times go back: $(cat dev.txt)"
assert_eq "$(awk '$2 == 1000035000' dev.txt | cut -d' ' -f1)" 10 "corr 10 at its synced start"
# nothing was released early: corr 12's command (collected first) comes out
# after the enqueue of corr 10, whose command was collected last
grep -q '^# device_commands=5 reorder_overflows=0 reorder_expired=0$' tl.txt || fail "summary: $(tail -1 tl.txt)"
e10=$(grep -n '^end .*name=clEnqueueNDRangeKernel corr=10 ' tl.txt | cut -d: -f1)
d12=$(grep -n '^device .* corr=12$' tl.txt | cut -d: -f1)
[ -n "$e10" ] && [ -n "$d12" ] && [ "$d12" -gt "$e10" ] || fail "corr 12 released before corr 10's enqueue ($d12 vs $e10)"
"$HT" check t >/dev/null || fail "check"
echo "ok"
