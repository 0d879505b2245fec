# hetrace view on a recorded program (view_prog.c) whose region, thread,
# counter and instant names are hostile: all of them reach the page as text.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/view_lib.sh"
"$HT" record -o t -- "$BUILD/bin/view_prog" 20 >rec.out 2>&1 || fail "record failed: $(cat rec.out)"
"$HT" view t -o v.html 2>view.err || fail "hetrace view failed: $(cat view.err)"
grep -qiE '<img|<i>|<b>' v.html && fail "raw markup from the trace in the HTML"
page_dom v.html dom.html "#selftest"
grep -q 'data-selftest="ok"' dom.html || fail "selftest: $(grep -A9 '<pre id="selftest-result"' dom.html)"
grep -qiE '<img|<i>|<b>' dom.html && fail "markup from the trace in the DOM"
in_dom 'main&lt;i&gt;x&lt;/i&gt;' dom.html "thread row label"
in_dom '&lt;img src=x onerror=alert(1)&gt;' dom.html "hostile region as text"
in_dom 'depth&lt;b&gt;' dom.html "counter row label"
in_dom '>phase-a<' dom.html "region table"
python3 - v.html <<'PY' || fail "embedded JSON"
import json, re, sys
d = json.loads(re.search(r'id="ht-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
S = d["strings"]
th = [t for p in d["procs"] for t in p["tracks"] if t["k"] == "thread" and S[t["name"]] == "main<i>x</i>"]
assert len(th) == 1, "thread row"
s = th[0]["s"]
names = [S[s[i + 2]] for i in range(0, len(s), 7)]
assert names.count("<img src=x onerror=alert(1)>") == 20 and names.count("phase-a") == 20, names
assert names.count("tick&amp;") == 1, "instant"
depth = {S[s[i + 2]]: s[i + 3] for i in range(0, len(s), 7)}
assert depth["<img src=x onerror=alert(1)>"] == 0 and depth["phase-a"] == 1, depth
c = [t for p in d["procs"] for t in p["tracks"] if t["k"] == "counter"]
assert len(c) == 1 and S[c[0]["name"]] == "depth<b>" and len(c[0]["v"]) == 40, c
PY
timeline_drawn v.html dom.html 2000
echo "ok"
