# Chrome JSON export of hostile names: the file parses, every name decodes
# back to the original text (0xff -> U+FFFD), and no markup survives raw.
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
"$HT" record -o r -- "$HOSTILE_PROG" >rec.out 2>&1 || fail "record failed: $(cat rec.out)"
export_ok r chrome r.json
PYTHONPATH=$SRC python3 - r.json <<PY || fail "chrome JSON content"
import sys
from chrome_check import load, fail, meta
doc, slices = load(sys.argv[1])
want = $HOSTILE_PY
ev = doc["traceEvents"]
def one(what, got):
    if len(got) != 1:
        fail(f"{what}: {len(got)} matches")
one("thread name", [v for v in meta(doc, "thread_name").values() if v == want])
one("region slice", [s for s in slices if s["name"] == want and s["cat"] == "region"])
one("instant", [e for e in ev if e["ph"] == "i" and e["name"] == want and e["args"] == {"note": want}])
one("counter", [e for e in ev if e["ph"] == "C" and e["name"] == want and e["args"]["value"] == 42])
PY
assert_eq "$(grep -c '<img' r.json)" 0 "raw markup in the JSON"
echo "ok"
