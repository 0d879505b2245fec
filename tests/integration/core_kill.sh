# SIGKILL: every event completed before the kill is readable. Killing the
# program: record finalizes, no repair needed. Killing record too: the trace
# keeps raw timestamps until `hetrace check --repair`.
. "$(dirname "$0")/lib.sh"

spin() { # spin DIR: starts a recording of `annot_prog spin`, waits until it is running
	"$HT" record -o "$1" -- "$PROG" spin >"$1.out" 2>"$1.err" &
	rec=$!
	background $rec
	for _ in $(seq 200); do
		grep -q ready "$1.out" 2>/dev/null && break
		sleep 0.05
	done
	app=$(pgrep -P $rec annot_prog)
	background $app
	grep -q ready "$1.out" || fail "spin did not start"
	[ -n "$app" ] || fail "no app process"
}

verify() { # verify DIR [nobt2]: counters are exactly 0..M-1 with M > 100000
	dump "$1" "$1.d"
	m=$(awk '/ counter name=spin / { split($6, v, "="); if (v[2] != n++) { print "gap at " n - 1 ": " v[2]; exit 1 } } END { print n }' "$1.d") ||
		fail "$1: counter values have gaps: $m; $(grep -E ' (discarded|lost) ' "$1.d" | sort | uniq -c | head -5)"
	assert_ge "$m" 100001 "$1: counters recorded"
	[ -z "${2:-}" ] || return 0 # millions of events: babeltrace2 would take minutes
	bt2_read "$1" "$1.b"
	assert_eq "$(count 'hetrace:counter:' "$1.b")" "$m" "$1: babeltrace2 counters"
}

spin k1
kill -KILL "$app"
wait $rec
assert_eq "$?" 137 "record exit status after SIGKILL"
# the packets in progress (thread and process streams, and the OS stream
# of the per-thread method) were salvaged
grep -qE "salvaged [1-3] packet\(s\) in progress when their process died" k1.err ||
	fail "no salvage: $(cat k1.err)"
[ -z "$(find k1 -name '.*')" ] || fail "files left behind: $(find k1 -name '.*')"
check_valid k1
verify k1

# Killing record alone: the program writes on, and a repair must not take
# its packets in progress (nor drain its rings) meanwhile.
spin k3
kill -KILL $rec
wait $rec 2>/dev/null
kill -0 "$app" || fail "the program died with record"
if "$HT" check --repair k3 >r3.out 2>&1; then
	fail "repair of a trace still being written: $(cat r3.out)"
fi
grep -qE "cannot repair 'k3': a process still writes into it \('[0-9]+-annot_prog/\.[a-z0-9.-]+\.(ring|cur)' is in use\)" r3.out ||
	fail "live repair message: $(cat r3.out)"
kill -STOP "$app" # stopped, it is still alive (and its trace smaller)
if "$HT" check --repair k3 >r3.out 2>&1; then
	fail "repair of a trace whose writer is stopped: $(cat r3.out)"
fi
kill -KILL "$app"
sleep 0.2
"$HT" check --repair k3 >r3.out 2>&1 || fail "repair after the program died: $(cat r3.out)"
[ -z "$(find k3 -name '.*')" ] || fail "left after repair: $(find k3 -name '.*')"
check_valid k3
verify k3 nobt2

spin k2
kill -KILL $rec "$app"
wait $rec 2>/dev/null
if "$HT" check k2 >c.out 2>&1; then fail "check accepted an unfinalized trace"; fi
grep -q "raw counter timestamps" c.out || fail "check message: $(cat c.out)"
"$HT" check --repair k2 >r.out 2>&1 || fail "repair failed: $(cat r.out)"
grep -qE "[123] in-progress packet\(s\) salvaged, [0-9]+ packet\(s\) converted" r.out ||
	fail "repair output: $(cat r.out)"
# the rings record left were drained into the stream files and removed, and
# its doorbell too
[ -z "$(find k2 -name '.*')" ] || fail "left after repair: $(find k2 -name '.*')"
check_valid k2
verify k2
echo "ok"
