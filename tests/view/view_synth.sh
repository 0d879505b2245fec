# hetrace view on a synthetic trace with hostile names (synth_trace.c, scenario hostile): the
# file is self-contained and its JSON escaped; in Chromium the page loads
# without console messages, shows the thread and queue rows, kern_a and the
# report's numbers, keeps every hostile string as text, and zoom, pan and
# hover work (the page's #selftest drives them).
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/view_lib.sh"
"$BUILD/bin/synth_trace" t hostile || fail "view_synth failed"
"$HT" view t -o v.html 2>view.err || fail "hetrace view failed: $(cat view.err)"

# -- the file itself
grep -qi '<img' v.html && fail "raw '<img' in the HTML: $(grep -oi '.\{40\}<img.\{40\}' v.html | head -2)"
grep -q '<script>alert' v.html && fail "a trace string closed the data block"
grep -qiE '(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/|src="|href="' v.html && fail "a reference to something outside the file"
in_dom "Content-Security-Policy\" content=\"default-src 'none'" v.html "CSP"
python3 - v.html <<'PY' || fail "embedded JSON"
import json, re, sys
html = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="ht-data">(.*?)</script>', html, re.S)
assert m, "no data block"
d = json.loads(m.group(1))
S = d["strings"]
for s in ["<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>", "render<i>x</i>", "kern_a"]:
    assert s in S, ("missing string", s)
tracks = [t for p in d["procs"] for t in p["tracks"]]
kinds = sorted(t["k"] for t in tracks)
assert kinds == ["kernels", "thread", "transfers"], kinds
thr = [t for t in tracks if t["k"] == "thread"][0]
assert S[thr["name"]] == "render<i>x</i>" and thr["tid"] == 101, thr
ker = [t for t in tracks if t["k"] == "kernels"][0]
assert ker["queue"] == "0xabc0", ker
# kernels: start (delta from t0) / duration; t0 is the first record, host 1000
names = [S[ker["s"][i + 2]] for i in range(0, len(ker["s"]), 11)]
assert names == ["kern_a", "<img src=x onerror=alert(1)>"], names
assert ker["s"][0:2] == [3000, 4000], ker["s"][0:2]
assert d["aggregated"] == 0 and d["slices"] == d["kept_slices"] == 10, (d["slices"], d["kept_slices"])
PY

# -- in Chromium
page_dom v.html dom.html "#selftest"
grep -q 'data-selftest="ok"' dom.html || fail "selftest: $(grep -A9 '<pre id="selftest-result"' dom.html)"
grep -qi '<img' dom.html && fail "an <img> element in the DOM"
grep -q '<i>x' dom.html && fail "an <i> element from the thread name in the DOM"
grep -q '<script>alert' dom.html && fail "a <script> from a region name in the DOM"
in_dom '&lt;img src=x onerror=alert(1)&gt;' dom.html "hostile kernel as text"
in_dom '&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;' dom.html "hostile region as text"
in_dom 'render&lt;i&gt;x&lt;/i&gt;' dom.html "thread row label"
in_dom 'tid 101' dom.html "thread row"
in_dom 'GPU 0 kernels<span class="sub">queue 0xabc0<' dom.html "kernel row"
in_dom 'GPU 0 transfers<span class="sub">queue 0xabc0<' dom.html "transfer row"
in_dom '>kern_a<' dom.html "kernel kern_a"
in_dom '>clFinish<' dom.html "API table"
in_dom 'hover shows kern_a' dom.html "hover on the longest kernel"
timeline_drawn v.html dom.html 3000
echo "ok"
