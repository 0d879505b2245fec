# hetrace view's command line: errors say what and where and leave no file.
. "$(dirname "$0")/../integration/lib.sh"
"$BUILD/bin/synth_trace" t hostile || fail "view_synth failed"
mkdir notrace
"$HT" view notrace -o a.html 2>err.txt && fail "view of a directory that is no trace succeeded"
grep -q "notrace" err.txt || fail "the error does not name the trace: $(cat err.txt)"
[ ! -e a.html ] || fail "a failed view left a.html"
ls | grep -q 'a.html.tmp' && fail "a failed view left a temporary file"
"$HT" view t -o a.html 2>/dev/null || fail "view failed"
"$HT" view t -o a.html 2>err.txt && fail "view replaced a file without --force"
"$HT" view t -o a.html --force 2>/dev/null || fail "view --force failed"
grep -q '^<!DOCTYPE html>' a.html || fail "not an HTML file"
tail -c 200 a.html | grep -q '</html>' || fail "the page is cut short"
echo "ok"
