# Shared helpers for hetrace integration tests (sourced by each test script).
# Usage: test.sh BUILD_DIR ; every test works in its own temp directory.
set -u
BUILD=$(cd "$1" && pwd)
HT=$BUILD/bin/hetrace
DUMP=$BUILD/bin/ht_test_dump
PROG=$BUILD/bin/annot_prog
WORK=$(mktemp -d /tmp/hetrace-test.XXXXXX)
# background PID...: processes the test started, killed when it ends however
# it ends (a program left running after a failed test filled the disk)
HT_BG=
background() {
	HT_BG="$HT_BG $*"
}
kill_background() {
	[ -z "$HT_BG" ] || kill -KILL $HT_BG 2>/dev/null
	HT_BG=
}
trap 'kill_background; rm -rf "$WORK"' EXIT
cd "$WORK"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# assert_eq ACTUAL EXPECTED WHAT
assert_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}

# assert_ge ACTUAL MIN WHAT
assert_ge() {
	[ "$1" -ge "$2" ] || fail "$3: got $1, expected at least $2"
}

# count PATTERN FILE: lines matching an extended regex
count() {
	grep -cE -- "$1" "$2" || true
}

# json_check JSON PYTHON: runs PYTHON with `d` = the parsed report; fails with its message
json_check() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
def fail(m):
    print('FAIL: ' + m, file=sys.stderr)
    sys.exit(1)
$2
" "$1" || fail "report check failed on $1"
}

# bt2_read TRACE OUT: babeltrace2 reads the trace; fails on any warning
bt2_read() {
	babeltrace2 "$1" >"$2" 2>"$2.err" || fail "babeltrace2 failed on $1: $(head -3 "$2.err")"
	[ ! -s "$2.err" ] || fail "babeltrace2 warned on $1: $(head -3 "$2.err")"
}

# dump TRACE OUT: our reader's view of every event
dump() {
	"$DUMP" "$1" >"$2" || fail "ht_test_dump failed on $1"
}

# check_valid TRACE: hetrace check accepts it
check_valid() {
	"$HT" check "$1" >check.out 2>&1 || fail "hetrace check rejected $1: $(cat check.out)"
}

# monotonic DUMP: event timestamps never go back within a stream
monotonic() {
	awk '$3 != "-" { k = $1 " " $2; if (k in last && $3 + 0 < last[k]) { print "back: " $0; bad = 1 } last[k] = $3 + 0 }
	     END { exit bad }' "$1" || fail "timestamps go backwards in $1"
}
