# hetrace view on a 1M-event trace (annot_prog single 333333: 333k regions,
# 333k counters): the page is aggregated and bounded in size, and still
# loads in Chromium without errors, draws, and zooms, pans and hovers.
# Times are printed for information, never asserted (bench/ measures them).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/view_lib.sh"
"$HT" record -o t -- "$PROG" single 333333 >rec.out 2>&1 || fail "record failed: $(cat rec.out)"
start=$(date +%s%N)
"$HT" view t -o v.html 2>view.err || fail "hetrace view failed: $(cat view.err)"
end=$(date +%s%N)
size=$(stat -c %s v.html)
echo "view of $(du -sh t | cut -f1) trace: $(( (end - start) / 1000000 )) ms, $size bytes"
[ "$size" -lt 40000000 ] || fail "page of $size bytes for 1M events (expected < 40 MB)"
[ "$size" -gt 1000000 ] || fail "page of $size bytes: the slices are missing"
python3 - v.html <<'PY' || fail "embedded JSON"
import json, re, sys
d = json.loads(re.search(r'id="ht-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
assert d["slices"] >= 333333 and d["samples"] == 333333, (d["slices"], d["samples"])
assert d["aggregated"] == 1 and 0 < d["kept_slices"] <= 200000, d["kept_slices"]
t = [t for p in d["procs"] for t in p["tracks"] if t["k"] == "thread"][0]
assert "agg" in t and t["agg"]["nb"] >= 256, "buckets"
busy = sum(t["agg"]["b"][0][i + 1] for i in range(0, len(t["agg"]["b"][0]), 4))
assert busy > 0, "buckets hold the busy time"
PY
page_dom v.html dom.html "#selftest"
grep -q 'data-selftest="ok"' dom.html || fail "selftest: $(grep -A9 '<pre id="selftest-result"' dom.html)"
in_dom 'Large trace, aggregated' dom.html "the page says it is aggregated"
in_dom '333,333' dom.html "region count in the summary"
timeline_drawn v.html dom.html 5000
echo "ok"
