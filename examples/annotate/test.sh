# The annotated example records its stages, and its -DHETRACE_DISABLE build
# holds no trace of hetrace while computing the same result.
. "$(dirname "$0")/../../tests/integration/lib.sh"
B=$BUILD/bin
"$B/pipeline" 200 >plain.txt || fail "pipeline failed untraced"
"$B/pipeline-disabled" 200 >disabled.txt || fail "disabled build failed"
cmp -s plain.txt disabled.txt || fail "builds disagree: $(cat plain.txt disabled.txt)"
[ ! -e hetrace-* ] 2>/dev/null || fail "an untraced run created a trace"
if nm -D "$B/pipeline-disabled" | grep -q ' ht_'; then fail "disabled build references hetrace"; fi
ldd "$B/pipeline-disabled" | grep -q libhetrace && fail "disabled build links libhetrace"
"$HT" record -q -o t -- "$B/pipeline" 200 >traced.txt || fail "record failed"
cmp -s plain.txt traced.txt || fail "tracing changed the output"
dump t d.txt
assert_eq "$(count ' region_begin name=work$' d.txt)" 200 "work regions"
assert_eq "$(count ' region_end name=work$' d.txt)" 200 "work regions closed"
assert_eq "$(count ' region_begin name=produce$' d.txt)" 1 "produce region"
assert_eq "$(count ' counter name=queue_depth ' d.txt)" 400 "queue depth samples"
assert_eq "$(count ' instant name=progress ' d.txt)" 4 "progress instants"
assert_eq "$(count 'name="consumer"' d.txt)" 1 "consumer thread name"
assert_eq "$(count 'name="producer"' d.txt)" 1 "producer thread name"
bt2_read t b.txt
echo "ok"
