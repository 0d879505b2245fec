# SQLite export of bad input and to bad places: one clear line on stderr,
# exit status 1, and no file (not even a temporary one) left behind.
. "$(dirname "$0")/../integration/lib.sh"
# no_output WHAT: nothing but the inputs and err.txt in the directory
no_output() {
	left=$(ls -A | grep -v -e '^q$' -e '^notatrace$' -e '^bad$' -e '^cut$' -e '^err.txt$' -e '^ro$' -e '^exists.sqlite$' || true)
	[ -z "$left" ] || fail "$1: left files behind: $left"
}
# one_error WHAT PATTERN CMD...: fails with exit status 1 and one line matching PATTERN
one_error() {
	what=$1 pattern=$2
	shift 2
	rc=0
	"$@" >/dev/null 2>err.txt || rc=$?
	assert_eq "$rc" 1 "$what: exit status"
	assert_eq "$(wc -l <err.txt)" 1 "$what: lines on stderr ($(cat err.txt))"
	grep -qE -- "$pattern" err.txt || fail "$what: message: $(cat err.txt)"
	no_output "$what"
}
"$BUILD/bin/synth_queues" q queues || fail "synth_queues"
mkdir notatrace && echo hello >notatrace/file.txt
one_error "not a trace" "^hetrace: cannot open trace 'notatrace'" "$HT" export notatrace --format sqlite -o out.sqlite
cp -r q bad
printf 'XXXX' | dd of=bad/100-synth/thread-101 conv=notrunc 2>/dev/null
one_error "corrupt packet" "^hetrace: bad/100-synth/thread-101: offset 0: bad packet magic" \
	"$HT" export bad --format sqlite -o out.sqlite
cp -r q cut
truncate -s 300 cut/100-synth/device-2
rc=0
"$HT" export cut --format sqlite -o cut.sqlite 2>err.txt || rc=$?
if [ "$rc" = 0 ]; then # a torn tail is dropped and said so by info; the rest exports
	[ "$(sqlite3 cut.sqlite 'SELECT count(*) FROM kernels')" -lt 4 ] || fail "torn device stream: all kernels"
	[ "$(sqlite3 cut.sqlite 'SELECT count(*) FROM api_calls')" = 8 ] || fail "torn device stream: API calls lost"
	rm cut.sqlite
else
	assert_eq "$rc" 1 "torn stream: exit status"
	assert_eq "$(wc -l <err.txt)" 1 "torn stream: lines on stderr ($(cat err.txt))"
fi
no_output "torn stream"
touch exists.sqlite
one_error "existing output" "'exists.sqlite' exists; use --force" "$HT" export q --format sqlite -o exists.sqlite
[ ! -s exists.sqlite ] || fail "existing output was written"
"$HT" export q --format sqlite -o exists.sqlite --force 2>err.txt || fail "--force: $(cat err.txt)"
[ "$(sqlite3 exists.sqlite 'SELECT count(*) FROM kernels')" = 4 ] || fail "--force: not replaced"
mkdir ro && chmod 500 ro
if [ "$(id -u)" != 0 ]; then
	one_error "unwritable directory" "^hetrace: cannot create 'ro/out.sqlite.tmp" "$HT" export q --format sqlite -o ro/out.sqlite
fi
one_error "missing directory" "^hetrace: cannot create 'nodir/out.sqlite.tmp" "$HT" export q --format sqlite -o nodir/out.sqlite
rc=0
"$HT" export q --format sqlit -o x.sqlite 2>err.txt || rc=$?
assert_eq "$rc" 2 "unknown format: exit status"
grep -q "sqlite.*, not 'sqlit'" err.txt || fail "unknown format: $(cat err.txt)"
echo "ok"
