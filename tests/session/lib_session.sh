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

# The session's variables (`hetrace session env`), and with_env CMD...,
# which becomes CMD with them: run it in a subshell or as a background job
# (the test's shell stays untraced; $! is CMD's pid).
SENV=$("$HT" session env) || fail "session env failed"
with_env() {
	eval "$SENV"
	exec "$@"
}

# alive PID: the process exists and is no zombie (a daemon's parent has
# exited; whoever adopted it reaps it in its own time)
alive() {
	[ -r "/proc/$1/stat" ] && ! awk '{ exit $3 != "Z" }' "/proc/$1/stat" 2>/dev/null
}
# gone PID: waits up to 5 s for PID to end
gone() {
	for _ in $(seq 250); do alive "$1" || return 0; sleep 0.02; done
	return 1
}
