# perf_event_open refused to record and the traced program alike (seccomp,
# as in a container): recording goes on without CPU states, and info/report
# say why, once.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/oslib.sh"
"$BUILD/bin/os_deny" "$HT" record -q -o t -- "$OSP" threads 5 >out.txt 2>&1
rc=$?
[ $rc = 77 ] && { echo "SKIP: no seccomp here"; exit 77; }
[ $rc = 0 ] || fail "record exited $rc: $(cat out.txt)"
dump t d.txt
assert_eq "$(count ' cpu_state ' d.txt)" 0 "cpu_state events"
assert_eq "$(count ' instant ' d.txt)" 5 "instants still recorded"
assert_eq "$(count ' os_status ' d.txt)" 1 "os_status notes (once, not per thread)"
"$HT" info t >i.txt || fail "info failed"
assert_eq "$(grep -c 'OS scheduling not recorded: perf_event_open: Permission denied (kernel.perf_event_paranoid = ' i.txt)" 1 "info reason"
"$HT" report t >r.txt || fail "report failed"
grep -q '^OS scheduling: OS scheduling not recorded: perf_event_open: Permission denied' r.txt ||
	fail "report reason: $(cat r.txt)"
check_valid t
bt2_read t b.txt
echo "ok"
