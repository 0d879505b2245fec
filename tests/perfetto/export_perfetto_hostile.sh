# Perfetto export of names that are hostile to viewers (markup, quotes, a
# backslash, newline, tab, an invalid UTF-8 byte): stored as valid UTF-8
# (0xff -> U+FFFD), otherwise byte for byte.
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
"$HT" record -o r -- "$HOSTILE_PROG" >rec.out 2>&1 || fail "record failed: $(cat rec.out)"
export_ok r perfetto r.pftrace
pf_check r.pftrace d.txt
cat d.txt
# pf_decode C-escapes: \" \\ \n and \x09 for the tab
E='<img src=x onerror=alert(1)> \"q\" \\ \nline2\x09'$'\xef\xbf\xbd'' end'
grep -qF "kind=thread pid=" d.txt || fail "no thread track"
assert_eq "$(grep -cF "name=\"$E\" parent=" d.txt)" 2 "thread and counter tracks named"
assert_eq "$(grep -cF "slice track=\"$E\" name=\"$E\" cat=\"region\"" d.txt)" 1 "region slice"
assert_eq "$(grep -cF "instant track=\"$E\" name=\"$E\" cat=\"instant\" ts=" d.txt)" 1 "instant"
grep -qF "args={note=$E}" d.txt || fail "instant argument"
grep -qF "counters track=\"$E\" parent=\"$E\" n=1 first=42 last=42" d.txt || fail "counter"
echo "ok"
