# Shared helpers of the OS scheduling tests (sourced after integration/lib.sh).
# OS_METHOD (environment) is the method under test: percpu (default: what
# `hetrace record` picks where system-wide perf events are permitted) or
# thread (forced: record runs with system-wide perf events refused to it, as
# a user without CAP_PERFMON at perf_event_paranoid >= 1 would).
OSP=$BUILD/bin/os_prog
CHECK="python3 $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/os_check.py"
OS_METHOD=${OS_METHOD:-percpu}

# record_os ARGS...: `hetrace record ARGS...` with the method under test
record_os() {
	if [ "$OS_METHOD" = thread ]; then
		"$BUILD/bin/os_deny" --cpu-wide "$HT" record "$@"
	else
		"$HT" record "$@"
	fi
}

# need_perf TRACE: skip (77) when this machine refused perf_event to the
# recorder, or the method under test did not run (per-CPU not permitted)
need_perf() {
	local os
	os=$("$HT" info "$1" | grep -m1 '^  os ')
	case $os in
	*'OS scheduling not recorded'*) echo "SKIP: $os"; exit 77 ;;
	*'from per-thread context switches'*)
		[ "$OS_METHOD" = thread ] || { echo "SKIP: system-wide perf events not permitted here (root, CAP_PERFMON or perf_event_paranoid <= 0)"; exit 77; } ;;
	*'from per-CPU context switches'*)
		[ "$OS_METHOD" = percpu ] || fail "per-CPU method ran, expected $OS_METHOD: $os" ;;
	*) fail "info says no OS method: '$os'" ;;
	esac
}

# at_least VALUE MIN WHAT (decimal numbers)
at_least() {
	awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 >= m + 0) }' || fail "$3: got $1, expected at least $2"
}

# at_most VALUE MAX WHAT
at_most() {
	awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 <= m + 0) }' || fail "$3: got $1, expected at most $2"
}
