# One count of processes (defect 6 of issue 20): the distinct pids among a
# trace's process directories, whether they recorded events or not. A shell
# runs annot_prog fork (2 pids), annot_prog exec (1 pid, 2 images) and two
# /bin/true children without events: 5 processes, 6 directories. info, the
# text and JSON reports, the view's summary and its header all say 5; the
# header adds how many have rows to draw (it said "1 process(es)" where the
# summary said 62 when PoCL forked its ld children).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/view_lib.sh"
"$HT" record -q -o t -- /bin/sh -c "'$PROG' fork 10; '$PROG' exec 10; /bin/true & /bin/true & wait" \
	>rec.out 2>&1 || fail "record failed: $(cat rec.out)"
assert_eq "$(ls -d t/*/ | wc -l)" 6 "process directories"
assert_eq "$(ls -d t/*/ | sed 's,^t/,,; s,-.*,,' | sort -u | wc -l)" 5 "distinct pids"
"$HT" info t >info.txt || fail "info failed"
in_dom "total       5 processes (6 images: exec), " info.txt "info"
"$HT" report t >r.txt || fail "report failed"
grep -qE '^span .*\), 5 processes \(6 images: exec\), ' r.txt || fail "text report: $(sed -n 2p r.txt)"
"$HT" report t --format json >r.json || fail "json report failed"
in_dom '"processes":5,"images":6,' r.json "JSON report"
"$HT" view t -o v.html 2>view.err || fail "hetrace view failed: $(cat view.err)"
page_dom v.html dom.html
in_dom '<div class="v">5 / ' dom.html "the view's summary"
in_dom 'processes / threads (6 images: exec)<' dom.html "the view's summary"
# the header: 5, and the processes that have rows: annot_prog fork's two, exec's second image
grep -qE 'id="info">5 process\(es\) \(3 with events to draw\), ' dom.html ||
	fail "the view's header: $(grep -o 'id="info">[^<]*' dom.html)"
echo "ok"
