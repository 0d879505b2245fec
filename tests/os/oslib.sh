# Shared helpers of the OS scheduling tests (sourced after integration/lib.sh).
OSP=$BUILD/bin/os_prog
CHECK="python3 $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/os_check.py"

# need_perf TRACE: skip (77) when this machine refused perf_event to the recorder
need_perf() {
	if "$HT" info "$1" | grep -q 'OS scheduling not recorded'; then
		echo "SKIP: $("$HT" info "$1" | grep 'OS scheduling not recorded')"
		exit 77
	fi
}

# at_least VALUE MIN WHAT (decimal numbers)
at_least() {
	awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 >= m + 0) }' || fail "$3: got $1, expected at least $2"
}

# at_most VALUE MAX WHAT
at_most() {
	awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 <= m + 0) }' || fail "$3: got $1, expected at most $2"
}
