# One count of processes (defect 6 of issue 20): the distinct pids among a
# trace's process directories, whether they recorded events or not. A shell
# (1 pid) runs annot_prog fork (2 pids), annot_prog exec (1 pid, 2 images)
# and two /bin/true children without events: 6 processes, 7 directories
# (every traced process has one, from its start). info, the
# text and JSON reports, the view's summary and its header all say 6; the
# header adds how many have rows to draw (it said "1 process(es)" where the
# summary said 62 when PoCL forked its ld children).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/view_lib.sh"
"$HT" record -q -o t -- /bin/sh -c "'$PROG' fork 10; '$PROG' exec 10; /bin/true & /bin/true & wait" \
	>rec.out 2>&1 || fail "record failed: $(cat rec.out)"
assert_eq "$(ls -d t/*/ | wc -l)" 7 "process directories"
assert_eq "$(ls -d t/*/ | sed 's,^t/,,; s,-.*,,' | sort -u | wc -l)" 6 "distinct pids"
"$HT" info t >info.txt || fail "info failed"
in_dom "total       6 processes (7 images: exec), " info.txt "info"
"$HT" report t >r.txt || fail "report failed"
grep -qE '^span .*\), 6 processes \(7 images: exec\), ' r.txt || fail "text report: $(sed -n 2p r.txt)"
"$HT" report t --format json >r.json || fail "json report failed"
in_dom '"processes":6,"images":7,' r.json "JSON report"
"$HT" view t -o v.html 2>view.err || fail "hetrace view failed: $(cat view.err)"
page_dom v.html dom.html
in_dom '<div class="v">6 / ' dom.html "the view's summary"
in_dom 'processes / threads (7 images: exec)<' dom.html "the view's summary"
# the header: 6 (every process has rows now: its life's CPU states and task events)
grep -qE 'id="info">6 process\(es\), ' dom.html ||
	fail "the view's header: $(grep -o 'id="info">[^<]*' dom.html)"
echo "ok"
