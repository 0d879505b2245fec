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

# start_running: A becomes a session_prog run (a tick every 200 us) with the
# session's variables, until "$WORK/stopA" exists; returns once it ticks
start_running() {
	with_env "$SPROG" run "$WORK/stopA" >a.out 2>a.err &
	A=$!
	background $A
	for _ in $(seq 100); do grep -q ready a.out && return 0; sleep 0.05; done
	fail "session_prog run did not start: $(cat a.err)"
}

# still_after TRACE WHAT: A runs on and writes nothing more into TRACE
still_after() {
	find "$1" -printf '%P %s\n' | sort >still.1
	sleep 0.3
	kill -0 $A 2>/dev/null || fail "the running program died at $2: $(cat a.err)"
	find "$1" -printf '%P %s\n' | sort >still.2
	cmp -s still.1 still.2 || fail "the trace changed after $2: $(diff still.1 still.2)"
}

# window DUMP WHAT: sets F and T, A's first and last tick in DUMP, after
# checking there is a window, later than A's start, of consecutive ticks
window() {
	ticks "$1" $A >window.t
	F=$(head -1 window.t)
	T=$(tail -1 window.t)
	[ -n "$F" ] || fail "$2: the running program recorded nothing"
	[ "$F" -gt 0 ] || fail "$2: ticks start at 0, before the window"
	assert_eq "$(wc -l <window.t)" $((T - F + 1)) "$2: ticks of the window are consecutive"
}
