# OS recording is on by default and with --os, and info says which method
# ran; --no-os records no CPU state.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/oslib.sh"
record_os -q -o on -- "$OSP" block 20 || fail "record exited $?"
need_perf on
dump on a.txt
assert_ge "$(count ' cpu_state ' a.txt)" 2 "cpu_state by default"
record_os -q --os -o on2 -- "$OSP" block 20 || fail "record --os exited $?"
dump on2 b.txt
assert_ge "$(count ' cpu_state ' b.txt)" 2 "cpu_state with --os"
record_os -q --no-os -o off -- "$OSP" block 20 || fail "record --no-os exited $?"
dump off c.txt
assert_eq "$(count ' cpu_state | os_status ' c.txt)" 0 "cpu_state with --no-os"
assert_eq "$(count ' region_end ' c.txt)" 1 "events with --no-os"
"$HT" info off >i.txt || fail "info failed"
grep -q '^  os ' i.txt && fail "info speaks of OS states with --no-os: $(grep '^  os' i.txt)"
case $OS_METHOD in thread) m='per-thread context switches' ;; *) m='per-CPU context switches, read by hetrace record' ;; esac
"$HT" info on | grep -qE "^  os +[0-9]+ CPU-state intervals .* from $m " || fail "info OS line: $("$HT" info on | grep '^  os')"
echo "ok"
