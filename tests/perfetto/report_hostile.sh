# Names that attack terminals and spreadsheets (hostile_prog terminal: escape
# sequences, a C1 control, formula cells, an invalid UTF-8 byte) reach them
# as text: the text report and info hold no raw control character (shown as
# \x1b, \u009b), every CSV cell that starts like a formula is quoted with a
# leading apostrophe, and the CSV is valid UTF-8 (U+FFFD for the bad bytes).
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
"$HT" record -o r -- "$HOSTILE_PROG" terminal >rec.out 2>&1 || fail "record failed: $(cat rec.out)"
"$HT" report r >report.txt || fail "text report failed"
"$HT" info r >info.txt || fail "info failed"
"$HT" report r --format csv >report.csv || fail "csv report failed"
/usr/bin/python3 - report.txt info.txt report.csv <<'PY' || fail "escaping"
import csv, io, re, sys
def fail(msg):
    print(msg); sys.exit(1)
for name in sys.argv[1:3]:
    raw = open(name, "rb").read()
    text = raw.decode("utf-8", "replace")
    bad = [c for c in text if (ord(c) < 0x20 and c not in "\n") or 0x7f <= ord(c) < 0xa0]
    if bad:
        fail(f"{name}: raw control characters {sorted(set(bad))!r}")
    shown_all = (r"\x1b[31mred\x1b[0m", r"\x1b]0;pwned\x07title", r"\u009b2Jcsi", r"bad\xff\xfeutf8")
    for shown in shown_all if name == sys.argv[1] else shown_all[:1]:  # info: the thread name
        if shown not in text:
            fail(f"{name}: {shown} not shown escaped")
    if name == sys.argv[1] and not re.search(r"^  =HYPERLINK", text, re.M):
        fail(f"{name}: the formula name is not a region row of the text report")
raw = open(sys.argv[3], "rb").read()
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as e:
    fail(f"CSV is not valid UTF-8: {e}")
names = set()
for row in csv.reader(io.StringIO(text)):
    for cell in row:
        if cell[:1] in ("=", "+", "-", "@") and not re.fullmatch(r"-[0-9.]+", cell):
            fail(f"CSV cell runs as a formula: {cell!r}")
    if row[:1] == ["region"]:
        names.add(row[1])
want = {"'=HYPERLINK(\"http://x\")", "'+1+cmd|' /C calc'!A0", "'-2+3", "'@SUM(A1:A2)",
        "bad\ufffd\ufffdutf8"}
if not want <= names:
    fail(f"CSV region names: missing {want - names}, have {names}")
PY
echo "ok"
