# Helpers for session tests (sourced after tests/integration/lib.sh).
SPROG=$BUILD/bin/session_prog
# Each test has a session directory of its own, so tests run in parallel
# and never meet the user's own session.
export HETRACE_SESSION_DIR=$WORK/ctl
# stop_sessions: ends whatever daemon this test left (its lock's holder)
stop_sessions() {
	for l in "$HETRACE_SESSION_DIR"/*.lock; do
		[ -e "$l" ] || continue
		n=$(basename "$l" .lock)
		"$HT" session stop --name "$n" -q >/dev/null 2>&1 || true
	done
}
trap 'stop_sessions; kill_background; rm -rf "$WORK"' EXIT

# ticks DUMP PID: the "tick" counter values of process PID, one a line
ticks() {
	grep -E "^$2-[^ ]* .* counter " "$1" | grep -oE 'tick[^0-9-]*-?[0-9]+' | grep -oE -- '-?[0-9]+$'
}
