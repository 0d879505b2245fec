# hetrace export --format ctf (re-sorted), read back with babeltrace2.
#   export_ctf.sh BUILD synth|threads|samples|nodevice|losses|fail
. "$(dirname "$0")/../integration/lib.sh"
MODE=$2
SYNTH=$BUILD/bin/synth_trace

# names FILE: "count name" per event name
names() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^hetrace:.*:$/) { n[$i]++; break } }
	     END { for (k in n) print n[k], k }' "$1" | sort -k2
}

# at NAME WHAT FILE: the raw timestamps (ns) of the NAME events whose line contains WHAT
at() {
	grep -F " hetrace:$1: " "$3" | grep -F -- "$2" | sed -E 's/^\[0*([0-9]+)\].*/\1/' | tr '\n' ' '
}

case $MODE in
synth)
	"$SYNTH" in >/dev/null || fail "synth_trace"
	"$HT" export in --format ctf -o out 2>err.txt || fail "export failed: $(cat err.txt)"
	[ -f out/100-synth/metadata ] || fail "no process trace: $(ls -R out)"
	assert_eq "$(ls out/100-synth | tr '\n' ' ')" "metadata process queue-0-abc0 thread-101 " "files"
	head -1 out/100-synth/metadata | grep -qx '/\* CTF 1.8 \*/' || fail "signature"
	grep -q 'absolute = true;' out/100-synth/metadata || fail "clock not absolute"
	grep -q 'domain = "ust";' out/100-synth/metadata || fail "env domain"
	bt2_read out bt.txt
	babeltrace2 --clock-cycles out >cy.txt 2>cy.err || fail "babeltrace2 --clock-cycles"
	assert_eq "$(names bt.txt | tr '\n' ' ')" \
		"3 hetrace:api_begin: 3 hetrace:api_end: 2 hetrace:device_command_begin: 2 hetrace:device_command_end: 1 hetrace:process_info: 1 hetrace:queue_info: 2 hetrace:region_begin: 2 hetrace:region_end: 1 hetrace:thread_info: " \
		"events per name"
	# device commands at their synced host times (device clock 1 ms behind)
	assert_eq "$(at device_command_begin 'name = "kern_a"' cy.txt)" "1000004000 " "kernel begin"
	assert_eq "$(at device_command_end 'name = "kern_a"' cy.txt)" "1000008000 " "kernel end"
	assert_eq "$(at device_command_begin 'name = "copy_d2h"' cy.txt)" "1000012000 " "copy begin"
	assert_eq "$(at device_command_end 'name = "copy_d2h"' cy.txt)" "1000013000 " "copy end"
	grep -F 'device_command_begin' bt.txt | grep -F 'name = "copy_d2h"' | grep -qF 'bytes = 1000000' || fail "copy bytes"
	grep -F 'device_command_begin' bt.txt | grep -F 'name = "kern_a"' |
		grep -F 'corr = 1,' | grep -qF 'queued = 1000002200, submit = 1000002300' || fail "kernel fields"
	grep -F 'device_command_begin' bt.txt | grep -qF 'device = 0, queue = 0xABC0' || fail "queue context"
	grep -F 'queue_info' bt.txt | grep -qF 'clock_sync = "ok"' || fail "queue_info sync"
	# CPU events unchanged in meaning and time
	assert_eq "$(at api_begin clEnqueueNDRangeKernel cy.txt)" "1000002000 " "enqueue begin"
	assert_eq "$(at api_end clEnqueueNDRangeKernel cy.txt)" "1000002500 " "enqueue end"
	grep -F 'api_end' bt.txt | grep -F clEnqueueNDRangeKernel | grep -qF 'ret = 0, corr = 1, nargs = 1' || fail "enqueue args"
	assert_eq "$(at region_begin step cy.txt)" "1000001000 1000020000 " "region begins"
	assert_eq "$(at api_end clFinish cy.txt)" "1000009000 1000010100 " "clFinish ends"
	# merged order: the kernel lies inside clFinish, as it ran
	grep -nE 'api_begin: .*clFinish|device_command_begin: .*kern_a|device_command_end: .*kern_a|api_end: .*clFinish' bt.txt |
		head -4 | sed -E 's/^[0-9]+:.*hetrace:([a-z_]+):.*/\1/' | tr '\n' ' ' >order.txt
	assert_eq "$(cat order.txt)" "api_begin device_command_begin device_command_end api_end " "merged order"
	;;
threads)
	"$HT" record -q -o t -- "$PROG" threads 4 1000 2>rec.err || fail "record: $(cat rec.err)"
	"$HT" export t --format ctf -o out 2>err.txt || fail "export failed: $(cat err.txt)"
	bt2_read out bt.txt
	assert_eq "$(ls out | wc -l)" 1 "process traces"
	assert_eq "$(ls out/*/ | grep -c '^thread-')" 4 "thread streams"
	assert_eq "$(count 'hetrace:counter:' bt.txt)" 4000 "counters"
	for k in 0 1 2 3; do
		tid=$(grep -F "hetrace:thread_info:" bt.txt | grep -F "name = \"worker-$k\"" |
			sed -E 's/.*tid = ([0-9]+),.*/\1/')
		[ -n "$tid" ] || fail "no thread_info for worker-$k"
		grep -F 'hetrace:counter:' bt.txt | grep -F "vtid = $tid," |
			awk -v k="$k" '{ v = $0; sub(/.*value = /, "", v); sub(/ }.*/, "", v)
				if (v + 0 != k * 1000000 + n) { print "bad " $0; exit 1 } n++ }
				END { if (n != 1000) { print "count " n; exit 1 } }' ||
			fail "worker-$k counters"
	done
	;;
samples)
	# every CPU sample in a samples-<tid> stream of its thread, its stack as
	# function names (as many as its depth); the threads' lives in the process
	# stream. A sample taken in hetrace's own code has no user frame (depth 0,
	# as the report counts it in the total only); most have frames
	"$HT" record -q -o t -- "$PROG" threads 2 1000000 2>rec.err || fail "record: $(cat rec.err)"
	"$HT" export t --format ctf -o out 2>err.txt || fail "export failed: $(cat err.txt)"
	bt2_read out bt.txt
	bt2_read t raw.txt
	n=$(count 'hetrace:cpu_sample:' bt.txt)
	assert_eq "$n" "$(count 'hetrace:cpu_sample:' raw.txt)" "CPU samples exported"
	assert_ge "$n" 10 "CPU samples"
	assert_eq "$(ls out/*/ | grep -c '^samples-')" "$(grep -F 'hetrace:cpu_sample:' bt.txt |
		sed -E 's/.* tid = ([0-9]+),.*/\1/' | sort -u | wc -l)" "samples streams (one per sampled thread)"
	grep -F 'hetrace:cpu_sample:' bt.txt | awk '{
		vtid = $0; sub(/.*vtid = /, "", vtid); sub(/,.*/, "", vtid)
		tid = $0; sub(/.* tid = /, "", tid); sub(/,.*/, "", tid)
		d = $0; sub(/.*depth = /, "", d); sub(/,.*/, "", d)
		k = gsub(/\[[0-9]+\] = "/, "&")
		if (vtid != tid || d != k) { print "bad: " $0; exit 1 }
		if (d < 1) bare++ }
		END { if (bare * 10 > NR) { print bare " of " NR " samples have no frame"; exit 1 } }' ||
		fail "a sample on another thread's stream, or a stack unlike its depth"
	grep -F 'hetrace:cpu_sample:' bt.txt | grep -qF '= "worker" ]' || fail "no sample in worker()"
	for k in process_start:1 thread_start:2 thread_exit:2 process_exit:1; do
		assert_eq "$(count "hetrace:task: .*kind = \"${k%:*}\"" bt.txt)" "${k#*:}" "task ${k%:*}"
	done
	;;
nodevice)
	"$SYNTH" in >/dev/null || fail "synth_trace"
	rm in/100-synth/device-0
	"$HT" export in --format ctf -o out 2>err.txt || fail "export failed: $(cat err.txt)"
	bt2_read out bt.txt
	assert_eq "$(ls out/100-synth | tr '\n' ' ')" "metadata process thread-101 " "files"
	assert_eq "$(count 'device_command' bt.txt)" 0 "device events"
	assert_eq "$(count 'hetrace:api_(begin|end):' bt.txt)" 6 "API events"
	;;
losses)
	# the recorder's losses stay losses: events_discarded, reported by babeltrace2
	(ulimit -f 256 && exec "$HT" record -q --buffer 16K -o t -- "$PROG" big 200000) 2>/dev/null
	babeltrace2 t >in.txt 2>in.err || fail "babeltrace2 on the input"
	kept=$(count 'hetrace:counter:' in.txt)
	assert_ge "$kept" 1 "input counters"
	lost=$(sed -nE 's/.*discarded ([0-9]+) events.*/\1/p' in.err)
	assert_ge "${lost:-0}" 1 "input losses"
	"$HT" export t --format ctf -o out 2>err.txt || fail "export failed: $(cat err.txt)"
	babeltrace2 out >bt.txt 2>bt.err || fail "babeltrace2 on the export: $(head -3 bt.err)"
	assert_eq "$(sed -nE 's/.*discarded ([0-9]+) events.*/\1/p' bt.err)" "$lost" "exported losses"
	assert_eq "$(count 'hetrace:counter:' bt.txt)" "$kept" "exported counters"
	;;
fail)
	mkdir notatrace
	echo hello >notatrace/file
	"$HT" export notatrace --format ctf -o out 2>err.txt
	assert_eq "$?" 1 "exit status on a non-trace"
	[ ! -e out ] || fail "out created for a non-trace"
	grep -q "hetrace:" err.txt || fail "no message: $(cat err.txt)"
	"$SYNTH" in >/dev/null || fail "synth_trace"
	printf XXXX | dd of=in/100-synth/thread-101 conv=notrunc 2>/dev/null # bad magic
	"$HT" export in --format ctf -o out 2>err.txt
	assert_eq "$?" 1 "exit status on a corrupt trace"
	[ ! -e out ] || fail "out created for a corrupt trace"
	assert_eq "$(ls -a | grep -c 'out\.tmp')" 0 "temporary left behind"
	;;
*)
	fail "unknown mode $MODE"
	;;
esac
echo ok
