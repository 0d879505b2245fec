#!/bin/bash
# Beside LTTng: a hetrace trace and an LTTng-UST trace recorded at the same
# time by one program open together, `babeltrace2 HETRACE_DIR LTTNG_DIR`
# prints one stream in time order without a warning (the clocks are one
# clock, CLOCK_MONOTONIC, with the same origin). The program alternates a
# hetrace counter k and the tracepoint ht_test:tick k, 300 us apart: the
# merged stream must alternate exactly. Needs root, lttng-tools and
# liblttng-ust (tools/install-deps.sh); starts a session daemon if none runs
# and stops what it started.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib.sh"
LPROG=$BUILD/bin/lttng_prog
[ -x "$LPROG" ] || { echo "skip: lttng_prog not built (liblttng-ust-dev missing)"; exit 77; }
command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null || { echo "skip: lttng-tools missing"; exit 77; }
command -v babeltrace2 >/dev/null || { echo "skip: babeltrace2 missing"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root (the root session daemon)"; exit 77; }

SESSION=hetrace-test-$$
# root's session daemons, zombies left out
sessiond_pids() { ps -u 0 -o pid=,stat=,comm= | awk '$3 == "lttng-sessiond" && $2 !~ /Z/ { print $1 }' | sort; }
BEFORE=$(sessiond_pids)
cleanup() {
	lttng destroy "$SESSION" >/dev/null 2>&1
	# what this test started (itself, or `lttng create` on its behalf) stops with it
	started=$(comm -13 <(echo "$BEFORE") <(sessiond_pids))
	[ -z "$started" ] || kill $started 2>/dev/null
	kill_background
	rm -rf "$WORK"
}
trap cleanup EXIT
[ -n "$BEFORE" ] || lttng-sessiond --daemonize --no-kernel || fail "cannot start lttng-sessiond"

N=50
lttng create "$SESSION" --output="$WORK/lttng" >/dev/null || fail "lttng create failed"
lttng enable-event --session="$SESSION" --userspace 'ht_test:*' >/dev/null || fail "lttng enable-event failed"
lttng start "$SESSION" >/dev/null || fail "lttng start failed"
"$HT" record -q -o "$WORK/ht" -- "$LPROG" $N || fail "hetrace record failed"
lttng stop "$SESSION" >/dev/null || fail "lttng stop failed"
lttng destroy "$SESSION" >/dev/null

babeltrace2 --clock-seconds "$WORK/ht" "$WORK/lttng" >merged.txt 2>merged.err || fail "babeltrace2 failed: $(head -3 merged.err)"
[ ! -s merged.err ] || fail "babeltrace2 warned: $(head -3 merged.err)"
# H k for hetrace's counter, L k for the tracepoint, in the merged order
sed -n -e 's/.* hetrace:counter: .*{ name = [0-9]*, value = \([0-9]*\) }$/H \1/p' \
	-e 's/.* ht_test:tick: .*{ value = \([0-9]*\) }$/L \1/p' merged.txt >seq.txt
for k in $(seq 0 $((N - 1))); do echo "H $k"; echo "L $k"; done >want.txt
cmp -s seq.txt want.txt || fail "merged order is not H0 L0 H1 L1 ...: $(diff want.txt seq.txt | head -5)"
# and every line's time is at or after the one before
awk -F'[][]' '{ t = $2 + 0; if (NR > 1 && t < last) { print "back at line " NR ": " $0; bad = 1 } last = t } END { exit bad }' \
	merged.txt || fail "the merged stream goes back in time"
echo "ok: $N hetrace and $N LTTng-UST events merged in time order"
