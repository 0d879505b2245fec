# Four threads, many packets each, small sub-buffers so the mapped window is remapped.
. "$(dirname "$0")/lib.sh"
T=4
N=30000
"$HT" record -q --buffer 16K -o t -- "$PROG" threads $T $N || fail "record exited $?"
dump t d.txt
monotonic d.txt
assert_eq "$(ls t/*/ | grep -c '^thread-')" $T "thread streams"
for k in 0 1 2 3; do
	awk -v base=$((k * 1000000)) -v n=$N '
		/ counter name=w / { split($6, v, "="); if (v[2] < base || v[2] >= base + 1000000) next
		  if (v[2] != base + i++) { print "bad " $0; exit 1 } }
		END { if (i != n) { print "count " i; exit 1 } }' d.txt || fail "thread $k values"
	assert_eq "$(count " name=\"worker-$k\"" d.txt)" 1 "thread name worker-$k"
done
# every worker-K counter comes from the same stream
assert_eq "$(awk '/ counter name=w / { print $2 }' d.txt | sort -u | wc -l)" $T "one stream per thread"
# the streams really wrapped over many 16 KiB packets
pk=$(for f in t/*/thread-*; do stat -c %s "$f"; done | awk '{ s += $1 } END { print int(s / 16384) }')
assert_ge "$pk" 100 "packets written"
check_valid t
bt2_read t b.txt
assert_eq "$(count 'hetrace:counter:' b.txt)" $((T * N)) "babeltrace2 counters"
# a thread still running at exit: its open packet is completed by record,
# which says nothing of a crash (the process exited normally)
"$HT" record -o late -- "$PROG" exitrun 1000 2>late.err || fail "record exitrun exited $?"
! grep -q "salvaged" late.err || fail "a normal exit reported as a crash: $(cat late.err)"
dump late l.txt
assert_eq "$(count ' counter name=late ' l.txt)" 1000 "counters of the thread alive at exit"
assert_eq "$(count ' name="late"' l.txt)" 1 "name of the thread alive at exit"
echo "ok"
