# perf_event_open refused (seccomp, as in a container or with
# kernel.perf_event_paranoid 3): one warning, and the rest is recorded
# (the calling contexts at API calls need no perf_event).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/samplib.sh"

"$BUILD/bin/os_deny" "$HT" record -o t -- "$CS" 5 200 >out.txt 2>err.txt
rc=$?
[ $rc = 77 ] && { echo "SKIP: no seccomp here"; exit 77; }
[ $rc = 0 ] || fail "record exited $rc: $(cat err.txt)"
grep -q "cs_prog: done" out.txt || fail "cs_prog did not finish"
assert_eq "$(grep -c 'CPU sampling' err.txt)" 1 "sampling warnings"
assert_eq "$(grep -c '^hetrace: CPU sampling not recorded: perf_event_open: Permission denied (kernel.perf_event_paranoid = .*); the rest is recorded$' err.txt)" 1 "the warning"
assert_eq "$(ls t/*/samples 2>/dev/null | wc -l)" 0 "samples streams"
"$HT" report --format json t >r.json || fail "report failed"
json_check r.json '
if d["cpu_samples"]["total"] != 0:
    fail("samples while refused")
if not any(c["frames"] == ["main", "phase_b", "launch_helper", "clEnqueueNDRangeKernel"] for c in d["calling_contexts"]):
    fail("API stacks missing: %r" % d["calling_contexts"])
'
check_valid t
# --no-sample: no warning, no samples
"$HT" record -o t2 --no-sample -- "$CS" 2 50 >out2.txt 2>err2.txt || fail "record --no-sample failed"
assert_eq "$(grep -c 'CPU sampling' err2.txt)" 0 "warnings with --no-sample"
assert_eq "$(ls t2/*/samples 2>/dev/null | wc -l)" 0 "samples with --no-sample"
echo ok
