# The recording subscriber (libhetrace-xpti.so) end to end: `hetrace record` of
# xpti_record_prog, an instrumented program that links only the static XPTI proxy.
# Usage: xpti_record.sh BUILD_DIR SCENARIO
#   content  exact regions and instants (ids, args, metadata), babeltrace2 silent, check, info
#   threads  4 threads at once: every region on its own thread, exact counts per thread
#   inert    without record: nothing printed by the tracer, nothing recorded, program works
#   api_off  record --api opencl: no XPTI event in the trace
#   exports  libhetrace-xpti.so exports xptiTraceInit and xptiTraceFinish only
#   bench    prints the per-notification cost (not asserted)
. "$(dirname "$0")/../integration/lib.sh"
PROG=$BUILD/bin/xpti_record_prog
SCENARIO=$2
# A clean slate: the tests decide which XPTI and HETRACE settings the program sees.
unset XPTI_FRAMEWORK_DISPATCHER XPTI_SUBSCRIBERS XPTI_TRACE_ENABLE HETRACE_DIR

# region_count DUMP EVENT NAME: how many EVENT (region_begin/region_end) events carry NAME
region_count() {
	awk -v e="$2" -v n="name=$3" '$4 == e && $5 == n { c++ } END { print c + 0 }' "$1"
}

content() {
	"$HT" record -q -o t -- "$PROG" run >out.txt 2>err.txt || fail "record exited $?: $(cat err.txt)"
	[ ! -s err.txt ] || fail "stderr not empty: $(head -3 err.txt)"
	# uids alpha=A beta=B graph=G node_a=NA node_b=NB edge=E sig=S udt=U udtype=T
	read -r _ alpha beta graph na nb edge sig udt udtype <out.txt
	for v in alpha beta graph na nb edge sig udt udtype; do
		eval "$v=\${$v#*=}"
	done
	[ "$graph" -gt 0 ] && [ "$na" -gt 0 ] && [ "$nb" -gt 0 ] && [ "$edge" -gt 0 ] ||
		fail "the program got no events: $(cat out.txt)"
	assert_eq "$udtype" 389 "user-defined type of the first tool (1 << 8 | 0x80 | 5)"
	dump t d.txt
	monotonic d.txt

	# Regions: exact counts per name, begin and end alike, nothing else.
	for spec in alpha:5 beta:3 fn_literal:4 ht.test:wait:2 fwa_name:2 ht.test:mem_alloc:1; do
		name=${spec%:*}
		n=${spec##*:}
		assert_eq "$(region_count d.txt region_begin "$name")" "$n" "region_begin $name"
		assert_eq "$(region_count d.txt region_end "$name")" "$n" "region_end $name"
	done
	assert_eq "$(count ' region_begin ' d.txt)" 17 "region_begin total"
	assert_eq "$(count ' region_end ' d.txt)" 17 "region_end total"
	# Every region ends where it began: a stack per thread.
	awk '$4 == "region_begin" { s[$2, ++d[$2]] = $5 }
	     $4 == "region_end" { if (d[$2] < 1 || s[$2, d[$2]] != $5) { print "unmatched: " $0; bad = 1 } d[$2]-- }
	     END { for (t in d) if (d[t]) { print "open regions on " t; bad = 1 } exit bad }' d.txt ||
		fail "regions do not nest"

	# Instants: the exact list, in order, with ids and args.
	cut -d' ' -f4- d.txt | grep '^instant ' >instants.txt
	cat >expected.txt <<EOF
instant name=xpti.stream args=stream:xpti.framework,id:1,major:1,minor:0,version:1.0.0
instant name=xpti.stream args=stream:ht.test,id:2,major:1,minor:2,version:1.2.0
instant name=ht.test:mem_alloc args=handle:170,pointer:47872,size:4096,guard_zone:16
instant name=ht.test:graph_create args=uid:$graph,instance:1,name:graph0,kind:dag,nodes:2
instant name=ht.test:node_create args=uid:$na,instance:1,parent:$graph,name:node_a,file:prog.c,line:31,kernel:vadd,prio:-3
instant name=xpti.more args=uid:$na,scale:0.5,async:1
instant name=ht.test:node_create args=uid:$nb,instance:1,parent:$graph,name:node_b,file:prog.c,line:32
instant name=ht.test:edge_create args=uid:$edge,instance:1,parent:$graph,source:$na,target:$nb,name:edge_ab,access:read_write,bytes:4096
instant name=xpti.more args=uid:$edge,raw:0xdead01,k0:0,k1:1,k2:2,k3:3,k4:4
instant name=ht.test:signal args=uid:$sig,instance:1,user_data:4660,name:sig0
instant name=ht.test:metadata args=uid:$nb,instance:1,name:node_b,file:prog.c,line:32,late:yes
instant name=ht.test:user_defined_1_5 args=uid:$udt,instance:1,name:udt_event
EOF
	diff -u expected.txt instants.txt >instants.diff || fail "instants differ: $(cat instants.diff)"
	# Argument types as babeltrace2 and the exports see them: signed, unsigned, double.
	grep -q ' instant name=ht.test:node_create args=.*prio:-3$' d.txt || fail "prio is not signed"

	# All on the notifying thread (the program has one).
	assert_eq "$(awk '$4 == "region_begin" || $4 == "instant" { print $2 }' d.txt | sort -u | wc -l)" 1 "threads"

	check_valid t
	bt2_read t b.txt
	assert_eq "$(count 'hetrace:region_begin:' b.txt)" 17 "babeltrace2 region_begin"
	assert_eq "$(count 'hetrace:instant:' b.txt)" 12 "babeltrace2 instants"
	"$HT" info t >info.txt || fail "info failed"
	grep -q 'region_begin 17, region_end 17, instant 12' info.txt ||
		fail "info counts: $(grep events info.txt)"
}

threads() {
	"$HT" record -q -o t -- "$PROG" threads >out.txt 2>err.txt || fail "record exited $?"
	[ ! -s err.txt ] || fail "stderr not empty: $(head -3 err.txt)"
	dump t d.txt
	monotonic d.txt
	# Per thread stream: 1000 x shared and 100 x its own name, begin and end.
	awk '$4 ~ /^region_(begin|end)$/ { split($5, nv, "="); n = nv[2]; if (n != "shared") n = "own"
	                                   c[$2 " " $4 " " n]++; if (n == "own") o[$2] = o[$2] " " nv[2] }
	     END { for (k in c) print k, c[k] }' d.txt | sort >per_thread.txt
	assert_eq "$(awk '$3 == "shared" && $4 == 1000' per_thread.txt | wc -l)" 8 "shared per thread (4 x begin/end)"
	assert_eq "$(awk '$3 == "own" && $4 == 100' per_thread.txt | wc -l)" 8 "own per thread (4 x begin/end)"
	assert_eq "$(wc -l <per_thread.txt)" 16 "nothing else"
	# Each thread's own regions carry one name, different from the other threads'.
	assert_eq "$(awk '$4 == "region_begin" && $5 ~ /^name=own/ { print $2, $5 }' d.txt | sort -u | wc -l)" 4 "own names"
	assert_eq "$(awk '$4 == "region_begin" && $5 ~ /^name=own/ { print $5 }' d.txt | sort -u | wc -l)" 4 "distinct own names"
	check_valid t
	bt2_read t b.txt
}

inert() {
	local want="uids alpha=0 beta=0 graph=0 node_a=0 node_b=0 edge=0 sig=0 udt=0 udtype=65535"

	mkdir empty && cd empty || fail "mkdir"
	"$PROG" run >../out.txt 2>../err.txt || fail "program exited $? without a tracer"
	assert_eq "$(cat ../out.txt)" "$want" "output without a dispatcher"
	[ ! -s ../err.txt ] || fail "stderr without a dispatcher: $(cat ../err.txt)"

	# Dispatcher and recording subscriber loaded, but no `hetrace record`: the subscriber
	# takes no stream, so the program sees nobody subscribed and nothing is written.
	XPTI_FRAMEWORK_DISPATCHER=$BUILD/lib/libxptifw.so XPTI_SUBSCRIBERS=$BUILD/lib/libhetrace-xpti.so \
		"$PROG" run >../out2.txt 2>../err2.txt || fail "program exited $? with an idle subscriber"
	# One instance per xptiMakeEvent: alpha's last is the 5th, beta's the 8th.
	grep -qE '^uids alpha=5 beta=8 graph=[1-9]' ../out2.txt || fail "dispatcher not used: $(cat ../out2.txt)"
	[ ! -s ../err2.txt ] || fail "stderr with an idle subscriber: $(cat ../err2.txt)"
	XPTI_FRAMEWORK_DISPATCHER=$BUILD/lib/libxptifw.so XPTI_SUBSCRIBERS=$BUILD/lib/libhetrace-xpti.so \
		"$PROG" bench 1000 >../out3.txt 2>&1 || fail "bench exited $?"
	grep -q 'subscribed=0)$' ../out3.txt || fail "idle subscriber registered callbacks: $(cat ../out3.txt)"
	assert_eq "$(ls -A | wc -l)" 0 "files written without record"
	cd ..
}

api_off() {
	"$HT" record -q --api opencl -o t -- "$PROG" run >out.txt 2>err.txt || fail "record exited $?"
	[ ! -s err.txt ] || fail "stderr not empty: $(head -3 err.txt)"
	grep -q '^uids alpha=0 ' out.txt || fail "XPTI was configured with --api opencl: $(cat out.txt)"
	dump t d.txt
	assert_eq "$(count ' process_info ' d.txt)" 1 "the process is in the trace"
	assert_eq "$(count ' (region_begin|region_end|instant) ' d.txt)" 0 "XPTI events"
	assert_eq "$(count 'ht\.test|xpti\.stream' d.txt)" 0 "XPTI strings"
	check_valid t
}

exports() {
	local lib=$BUILD/lib/libhetrace-xpti.so

	assert_eq "$(nm -D --defined-only "$lib" | awk '{ print $3 }' | sort | tr '\n' ' ')" \
		"xptiTraceFinish xptiTraceInit " "exported symbols of $lib"
}

bench() {
	local n=1000000

	echo "per-notification cost, function_begin/end on one event:"
	printf '  no dispatcher (inert proxy):        '
	"$PROG" bench $n || fail "bench failed"
	printf '  subscriber loaded, not recording:   '
	XPTI_FRAMEWORK_DISPATCHER=$BUILD/lib/libxptifw.so XPTI_SUBSCRIBERS=$BUILD/lib/libhetrace-xpti.so \
		"$PROG" bench $n || fail "bench failed"
	printf '  hetrace record (region per event):  '
	"$HT" record -q -o t -- "$PROG" bench $n || fail "bench under record failed"
}

case $SCENARIO in
content | threads | inert | api_off | exports | bench) $SCENARIO ;;
*) fail "unknown scenario '$SCENARIO'" ;;
esac
echo "ok"
