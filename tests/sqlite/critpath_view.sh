# The view highlights the critical path: the page gets the report's path
# (items and steps), draws every step under the row it ran on (red along
# the row's bottom), lists the items in its summary, and C toggles it.
# Synthetic two-queue trace of synth_queues.c (path: see critpath_synth.sh).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/../view/view_lib.sh"
"$BUILD/bin/synth_queues" q queues || fail "synth_queues"
"$HT" view q -o v.html 2>view.err || fail "hetrace view failed: $(cat view.err)"
/usr/bin/python3 - v.html <<'PY' || fail "the page's critical path"
import json, re, sys
html = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script type="application/json" id="ht-data">(.*?)</script>', html, re.S).group(1))
S, cp = d["strings"], d["critical_path"]
assert cp["length"] == 11800 and cp["steps_total"] == 15 and len(cp["steps"]) == 15, cp
K = cp["kinds"]
items = [(K[k], S[n], ns, total, count) for k, n, ns, total, count in cp["items"]]
assert items[:3] == [("kernel", "kern_d(float*)", 5600, 5600, 1), ("kernel", "kern_b", 2200, 2200, 1),
                     ("kernel", "kern_c", 1500, 1500, 1)], items
# steps: [pid, tid, device, queue, start - t0, duration, kind, name]; t0 = the first slice, host 1000
steps = [(s[0], s[1], s[3] if not s[1] else "", s[4], s[5], K[s[6]], S[s[7]]) for s in cp["steps"]]
assert steps[0] == (100, 101, "", -500, 500, "cpu", "(no API call or region)"), steps[0]
assert steps[5] == (100, 0, "0xb2", 800, 2200, "kernel", "kern_b"), steps[5]
assert steps[-1] == (100, 101, "", 11100, 200, "cpu", "post"), steps[-1]
assert sum(s[4] for s in steps) == 11800
PY
page_dom v.html dom.html "#selftest"
grep -q 'data-selftest="ok"' dom.html || fail "selftest: $(grep -A9 '<pre id="selftest-result"' dom.html)"
grep -q 'data-critical-path="15/15"' dom.html ||
	fail "path steps placed on rows: $(grep -o 'data-critical-path="[^"]*"' dom.html)"
in_dom 'Critical path: 11.80 us, 15 steps' dom.html "summary heading"
in_dom '<td class="t">kern_d(float*)</td><td>kernel</td>' dom.html "summary row"
# red along the rows: pixels of the path's colour (#cf222e) in the timeline
page_shot v.html shot.png
rect=$(grep -o 'data-canvas="[0-9,]*"' dom.html | head -1 | tr -dc '0-9,')
/usr/bin/python3 - shot.png "$rect" "$2/tests/view" <<'PY' || fail "no path drawn"
import sys
sys.path.insert(0, sys.argv[3])
from png_check import read_png
w, h, bpp, rows = read_png(sys.argv[1])
x0, y0, rw, rh = (int(v) for v in sys.argv[2].split(","))
red = sum(1 for y in range(y0, min(h, y0 + rh)) for x in range(x0, min(w, x0 + rw))
          if tuple(rows[y][x * bpp:x * bpp + 3]) == (0xcf, 0x22, 0x2e))
print(red, "path pixels")
assert red >= 1000, red
PY
echo "ok"
