# hetrace export --format otf2, read back with otf2-print (events and -G).
#   export_otf2.sh BUILD synth|threads|nodevice|fail
. "$(dirname "$0")/../integration/lib.sh"
MODE=$2
SYNTH=$BUILD/bin/synth_trace
command -v otf2-print >/dev/null || { echo "otf2-print not installed: skipped"; exit 77; }

# events FILE: otf2-print's events, one line each, attributes joined on
otf2_events() {
	otf2-print "$1/traces.otf2" >ev.raw 2>ev.err || fail "otf2-print failed: $(head -3 ev.err)"
	[ ! -s ev.err ] || fail "otf2-print warned: $(head -3 ev.err)"
	awk '/^(ENTER|LEAVE|METRIC|BUFFER_FLUSH) / { if (l) print l; l = $0; next }
	     /^ +ADDITIONAL ATTRIBUTES:/ { sub(/^ +/, " "); l = l $0; next }
	     END { if (l) print l }' ev.raw >"$2"
}

# defs FILE: otf2-print -G
otf2_defs() {
	otf2-print -G "$1/traces.otf2" >"$2" 2>defs.err || fail "otf2-print -G failed: $(head -3 defs.err)"
}

# line_of KIND REGION FILE: the single KIND event of REGION
line_of() {
	local n
	n=$(grep -cE "^$1 .*Region: \"$2\"" "$3")
	assert_eq "$n" 1 "$1 events of $2"
	grep -E "^$1 .*Region: \"$2\"" "$3"
}

case $MODE in
synth)
	"$SYNTH" in >/dev/null || fail "synth_trace"
	"$HT" export in --format otf2 -o out 2>err.txt || fail "export failed: $(cat err.txt)"
	[ -f out/traces.otf2 ] && [ -f out/traces.def ] || fail "no archive: $(ls -R out)"
	otf2_events out ev.txt
	otf2_defs out defs.txt
	# Enter/Leave per region
	for r in "step 2" "clFinish 2" "clEnqueueNDRangeKernel 1" "kern_a 1" "copy_d2h 1"; do
		set -- $r
		assert_eq "$(count "^ENTER .*Region: \"$1\"" ev.txt)" "$2" "ENTER $1"
		assert_eq "$(count "^LEAVE .*Region: \"$1\"" ev.txt)" "$2" "LEAVE $1"
	done
	assert_eq "$(count '^(ENTER|LEAVE) ' ev.txt)" 14 "all Enter/Leave"
	assert_eq "$(count '^BUFFER_FLUSH' ev.txt)" 0 "buffer flushes"
	# the clock: 1 GHz, offset = the first timestamp; timestamps are absolute
	grep -q "CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000, Global Offset: 1000001000, Length: 20000" defs.txt ||
		fail "clock properties: $(grep CLOCK defs.txt)"
	# locations: thread 101 on the process group, queue 0xabc0 on the accelerator group
	cpu=$(awk '/^LOCATION  / && /Type: CPU_THREAD/ { print $2 }' defs.txt)
	acc=$(awk '/^LOCATION  / && /Type: ACCELERATOR_STREAM/ { print $2 }' defs.txt)
	assert_eq "$(echo $cpu | wc -w)" 1 "CPU locations"
	assert_eq "$(echo $acc | wc -w)" 1 "accelerator locations"
	grep -qE "^LOCATION +$acc +Name: \"queue 0xabc0\" .*# Events: 4, Group: \"device 0 \(process 100\)\"" defs.txt ||
		fail "queue location: $(grep '^LOCATION ' defs.txt)"
	grep -qE "^LOCATION_GROUP .*Name: \"device 0 \(process 100\)\" .*Type: ACCELERATOR, .*Creator: \"100-synth \(pid 100\)\"" defs.txt ||
		fail "accelerator group: $(grep '^LOCATION_GROUP' defs.txt)"
	grep -qE "^LOCATION_GROUP .*Name: \"100-synth \(pid 100\)\" .*Type: PROCESS" defs.txt ||
		fail "process group: $(grep '^LOCATION_GROUP' defs.txt)"
	# the kernel on the accelerator location at its synced times (offset 3000..7000 ns)
	k_in=$(line_of ENTER kern_a ev.txt)
	k_out=$(line_of LEAVE kern_a ev.txt)
	set -- $k_in
	assert_eq "$2 $3" "$acc 1000004000" "kernel Enter location, time"
	off=$(awk '/CLOCK_PROPERTIES/ { for (i = 1; i <= NF; i++) if ($i == "Offset:") print $(i + 1) + 0 }' defs.txt)
	assert_eq "$(($3 - off))" 3000 "kernel Enter after the global offset"
	set -- $k_out
	assert_eq "$2 $3" "$acc 1000008000" "kernel Leave location, time"
	set -- $(line_of ENTER copy_d2h ev.txt)
	assert_eq "$2 $3" "$acc 1000012000" "copy Enter"
	set -- $(line_of LEAVE copy_d2h ev.txt)
	assert_eq "$2 $3" "$acc 1000013000" "copy Leave"
	# CPU events on thread 101's location, in host time
	set -- $(line_of ENTER clEnqueueNDRangeKernel ev.txt)
	assert_eq "$2 $3" "$cpu 1000002000" "enqueue Enter"
	# attributes
	echo "$k_in" | grep -q '("corr" <[0-9]*>; UINT64; 1)' || fail "kernel corr: $k_in"
	echo "$k_in" | grep -q '("queued_ns" <[0-9]*>; UINT64; 1000002200)' || fail "kernel queued: $k_in"
	echo "$k_in" | grep -q '("global_x" <[0-9]*>; UINT64; 1024)' || fail "kernel global size: $k_in"
	c_in=$(line_of ENTER copy_d2h ev.txt)
	echo "$c_in" | grep -q '("bytes" <[0-9]*>; UINT64; 1000000)' || fail "copy bytes: $c_in"
	echo "$c_in" | grep -q '("corr" <[0-9]*>; UINT64; 2)' || fail "copy corr: $c_in"
	e_out=$(line_of LEAVE clEnqueueNDRangeKernel ev.txt)
	echo "$e_out" | grep -q '("ret" <[0-9]*>; INT32; 0), ("corr" <[0-9]*>; UINT64; 1)$' ||
		fail "enqueue attributes: $e_out"
	# regions: roles and the accelerator paradigm
	grep -qE '^REGION .*Name: "kern_a" .*Role: FUNCTION, Paradigm: "OpenCL"' defs.txt || fail "kernel region"
	grep -qE '^REGION .*Name: "copy_d2h" .*Role: DATA_TRANSFER, Paradigm: "OpenCL"' defs.txt || fail "copy region"
	grep -qE '^REGION .*Name: "clFinish" .*Role: FUNCTION, Paradigm: "OpenCL"' defs.txt || fail "API region"
	grep -qE '^REGION .*Name: "step" .*Role: CODE, Paradigm: USER' defs.txt || fail "user region"
	grep -qE '^PARADIGM .*OPENCL, .*Class: ACCELERATOR' defs.txt || fail "paradigm"
	grep -qE '^LOCATION_PROPERTY .*Name: "hetrace::clock_sync" .*Value: "ok"' defs.txt || fail "sync property"
	# every location in time order
	awk '/^(ENTER|LEAVE|METRIC) / { if ($2 in t && $3 < t[$2]) { print; bad = 1 } t[$2] = $3 }
	     END { exit bad }' ev.txt || fail "time goes back on a location"
	;;
threads)
	"$HT" record -q -o t -- "$PROG" threads 4 1000 2>rec.err || fail "record: $(cat rec.err)"
	"$HT" export t --format otf2 -o out 2>err.txt || fail "export failed: $(cat err.txt)"
	otf2_events out ev.txt
	otf2_defs out defs.txt
	# one location per worker thread, and (OS recording on) one for its CPU states
	assert_eq "$(count '^LOCATION +[0-9]+ .*Type: CPU_THREAD' defs.txt)" 8 "CPU locations"
	assert_eq "$(count '^LOCATION +[0-9]+ +Name: "CPU state of thread [0-9]+"' defs.txt)" 4 "CPU-state locations"
	assert_eq "$(count '^LOCATION +[0-9]+ .*Type: ACCELERATOR_STREAM' defs.txt)" 0 "accelerator locations"
	assert_eq "$(count '^LOCATION_GROUP .*Type: PROCESS' defs.txt)" 1 "process groups"
	assert_eq "$(count '^METRIC_MEMBER .*Name: "w" .*Value Type: INT64' defs.txt)" 1 "metric member w"
	assert_eq "$(count '^METRIC_CLASS .*1 Member: "w"' defs.txt)" 1 "metric class of w"
	assert_eq "$(count '^METRIC ' ev.txt)" 4000 "metric events"
	# the only Enter/Leave: running/preempted/blocked on the CPU-state locations
	cpulocs=$(awk '/^LOCATION  / && /Name: "CPU state of thread/ { print $2 }' defs.txt | tr '\n' ' ')
	awk -v locs="$cpulocs" 'BEGIN { n = split(locs, a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
		/^(ENTER|LEAVE) / { if (!($2 in ok)) { print "not a CPU-state location: " $0; exit 1 } }' ev.txt ||
		fail "Enter/Leave outside the CPU-state locations"
	for k in 0 1 2 3; do
		loc=$(awk -v n="\"worker-$k" '/^LOCATION  / && index($0, n) { print $2 }' defs.txt)
		[ -n "$loc" ] || fail "no location for worker-$k: $(grep '^LOCATION ' defs.txt)"
		grep -qE "^LOCATION +$loc +Name: \"worker-$k \(tid [0-9]+\)\" <[0-9]+>, Type: CPU_THREAD, # Events: 1000," defs.txt ||
			fail "worker-$k location: $(grep -E "^LOCATION +$loc " defs.txt)"
		# values K*1e6 + 0..999, in order, on worker K's location only
		awk -v loc="$loc" -v k="$k" '$1 == "METRIC" && $2 == loc {
			v = $NF; sub(/\)$/, "", v); if (v + 0 != k * 1000000 + n) { print "bad " $0; exit 1 } n++ }
			END { if (n != 1000) { print "count " n; exit 1 } }' ev.txt || fail "worker-$k metric values"
	done
	;;
nodevice)
	# a trace without device events: synth without its device stream
	"$SYNTH" in >/dev/null || fail "synth_trace"
	rm in/100-synth/device-0
	"$HT" export in --format otf2 -o out 2>err.txt || fail "export failed: $(cat err.txt)"
	otf2_events out ev.txt
	otf2_defs out defs.txt
	assert_eq "$(count '^(ENTER|LEAVE) ' ev.txt)" 10 "CPU Enter/Leave"
	assert_eq "$(count '^LOCATION.*ACCELERATOR' defs.txt)" 0 "accelerator locations and groups"
	assert_eq "$(count '^LOCATION +[0-9]+ .*Type: CPU_THREAD' defs.txt)" 1 "CPU locations"
	;;
fail)
	mkdir notatrace
	echo hello >notatrace/file
	"$HT" export notatrace --format otf2 -o out 2>err.txt
	assert_eq "$?" 1 "exit status on a non-trace"
	[ ! -e out ] || fail "out created for a non-trace"
	grep -q "hetrace:" err.txt || fail "no message: $(cat err.txt)"
	"$HT" export missing --format otf2 -o out 2>err.txt
	assert_eq "$?" 1 "exit status on a missing trace"
	[ ! -e out ] || fail "out created for a missing trace"
	# an existing OUT is kept without --force
	"$SYNTH" in >/dev/null || fail "synth_trace"
	mkdir out && echo keep >out/mine
	"$HT" export in --format otf2 -o out 2>err.txt
	assert_eq "$?" 1 "exit status when OUT exists"
	assert_eq "$(cat out/mine)" keep "existing OUT"
	# a corrupt stream: error, no OUT, no temporary left
	rm -rf out
	printf XXXX | dd of=in/100-synth/thread-101 conv=notrunc 2>/dev/null # bad magic
	"$HT" export in --format otf2 -o out 2>err.txt
	assert_eq "$?" 1 "exit status on a corrupt trace"
	[ ! -e out ] || fail "out created for a corrupt trace"
	assert_eq "$(ls -a | grep -c 'out\.tmp')" 0 "temporary left behind"
	;;
*)
	fail "unknown mode $MODE"
	;;
esac
echo ok
