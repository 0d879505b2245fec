# Threads created later, short-lived threads, and a child after fork and
# exec all get their CPU states; every thread's intervals are disjoint and
# cover it.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/oslib.sh"
record_os -q -o t -- "$OSP" threads 20 || fail "record exited $?"
need_perf t
dump t d.txt
$CHECK invariants d.txt >inv.txt || fail "invariants: $(cat inv.txt)"
grep -q '^threads=21 ' inv.txt || fail "threads with CPU states: $(cat inv.txt)"
for k in 0 7 19; do
	tid=$(grep -m1 " name=\"short-$k\"" d.txt | sed 's/.* tid=\([0-9]*\).*/\1/')
	assert_ge "$(grep -c "cpu_state tid=$tid " d.txt)" 1 "cpu_state of short-$k"
done
record_os -q -o f -- "$OSP" fork 50 || fail "record (fork) exited $?"
dump f e.txt
$CHECK invariants e.txt >inv2.txt || fail "invariants (fork): $(cat inv2.txt)"
assert_eq "$(ls -d f/*-os_prog* | wc -l)" 3 "process directories (parent, child, exec'd child)"
# the parent, the child before exec (its rings drained at exec) and after
assert_eq "$(awk '$4 == "cpu_state" { print $1 }' e.txt | sort -u | wc -l)" 3 "processes with CPU states"
read -r blocked _ < <($CHECK state e.txt blocker wait blocked) || fail "no blocked state in the child"
at_least "$blocked" 35 "exec'd child blocked ms (70% of 50)"
echo "ok"
