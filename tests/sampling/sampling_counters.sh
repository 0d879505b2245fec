# --counters with software counters (this machine, like most VMs, has no
# hardware counters: `perf stat -e instructions` says not supported): read
# per CPU sample and at API-call and region boundaries; a counter the
# machine lacks gives one warning and the rest is recorded.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/samplib.sh"

"$HT" record -o t --counters task-clock,page-faults,context-switches -- "$CS" 4 300 \
	>out.txt 2>err.txt || fail "record failed: $(cat err.txt)"
grep -q "counter" err.txt && fail "a warning for software counters: $(cat err.txt)"
dump t d.txt
for c in task-clock page-faults context-switches; do
	assert_eq "$(count "samples .* counter_name index=[0-9] name=\"$c\"" d.txt)" 1 "the name of $c"
done
samples=$(count ' cpu_sample ' d.txt)
assert_ge "$samples" 100 "samples"
assert_eq "$(count ' sample_counter ' d.txt)" $((3 * samples)) "counter values per sample"
# at API calls: after each begin and before each end, the three values
calls=$(count ' api_begin ' d.txt)
assert_eq "$(count ' counter name=' d.txt)" $((6 * calls)) "counter events at API boundaries"
# task-clock only grows within a thread
awk '/ sample_counter / && / index=0 / { split($0, a, "tid="); split(a[2], b, " "); split($0, c, "value="); v = c[2] + 0;
	if (b[1] in last && v < last[b[1]]) { print "task-clock went back: " $0; bad = 1 } last[b[1]] = v }
	END { exit bad }' d.txt || fail "task-clock per sample"
check_valid t
bt2_read t b.txt

# a counter this machine lacks (hardware ones on a VM; PAPI names map to them)
"$HT" record -q -o t2 --counters PAPI_TOT_INS,page-faults -- "$CS" 2 100 >out2.txt 2>err2.txt ||
	fail "record failed: $(cat err2.txt)"
if perf_hw=$(grep -c "counter 'PAPI_TOT_INS' is not available" err2.txt); [ "$perf_hw" = 1 ]; then
	assert_eq "$(grep -c '^hetrace: ' err2.txt)" 1 "warnings"
	dump t2 d2.txt
	assert_eq "$(count 'counter_name index=0 name="page-faults"' d2.txt)" 1 "the counter left"
else
	echo "note: this machine has hardware counters; the refusal path was not exercised"
fi
"$HT" record -o t3 --counters bogus -- true >out3.txt 2>err3.txt && fail "an unknown counter was accepted"
grep -q "unknown counter 'bogus'" err3.txt || fail "unknown counter message: $(cat err3.txt)"
echo ok
