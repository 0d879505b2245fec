# A kernel launched with two configurations and a mapped buffer (cl_configs.py
# on PoCL): every output has a kernel row per launch configuration with its
# own count and work sizes, and gives map/unmap their bytes and times but no
# GB/s: the text report ("-"), CSV (empty cells), JSON (null), and the view's
# tables and details.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/view_lib.sh"
/usr/bin/python3 -c "import pyopencl" 2>/dev/null || { echo "python3-pyopencl missing"; exit 77; }
POCL_DEVICES=basic "$HT" record -q -o t -- /usr/bin/python3 "$HERE/cl_configs.py" >rec.out 2>&1 ||
	fail "record failed: $(cat rec.out)"
grep -q "cl_configs: ok" rec.out || fail "the program failed: $(cat rec.out)"
"$HT" report t --format json >r.json || fail "json report failed"
"$HT" report t >r.txt || fail "text report failed"
"$HT" report t --format csv >r.csv || fail "csv report failed"
"$HT" view t -o v.html 2>view.err || fail "hetrace view failed: $(cat view.err)"
page_dom v.html dom.html
/usr/bin/python3 - r.json r.txt r.csv v.html dom.html <<'PY' || fail "outputs"
import csv, html.parser, json, re, sys
def fail(msg):
    print(msg); sys.exit(1)
r = json.load(open(sys.argv[1]))
# JSON: two rows of `scale`, each with its launch configuration and count
rows = sorted((k["count"], k["global"], k["local"]) for k in r["kernels"] if k["name"] == "scale")
if rows != [(3, [1024, 1, 1], [64, 1, 1]), (5, [512, 1, 1], [0, 0, 0])]:
    fail(f"JSON kernels: {r['kernels']}")
t = {x["name"]: x for x in r["transfers"]}
if t["map"]["count"] != 2 or t["map"]["bytes"] != 2 * 65536 or t["map"]["gbps"] is not None:
    fail(f"JSON map row: {t['map']}")
if t["unmap"]["count"] != 2 or t["unmap"]["gbps"] is not None:
    fail(f"JSON unmap row: {t['unmap']}")
if not t["copy_h2d"]["gbps"] or t["copy_h2d"]["bytes"] != 65536:
    fail(f"JSON copy row: {t['copy_h2d']}")
# text
text = open(sys.argv[2]).read()
got = sorted(re.findall(r"^  scale +(\d+) .* (\S+x\S+) +(\S+) +0$", text, re.M))
if got != [("3", "1024x1x1", "64x1x1"), ("5", "512x1x1", "auto")]:
    fail(f"text kernel rows: {got}\n{text}")
m = re.search(r"^  map +2 +131072 +\S+ \S+ +- +- +- +-$", text, re.M)
if not m:
    fail("text map row: " + "".join(l for l in text.splitlines(True) if l.startswith("  map")))
# CSV
cells = list(csv.reader(open(sys.argv[3])))
kern = sorted((c[4], c[2], c[3]) for c in cells if c[0] == "kernel")
if kern != [("3", "1024x1x1", "64x1x1"), ("5", "512x1x1", "")]:
    fail(f"CSV kernel rows: {kern}")
mp = [c for c in cells if c[:2] == ["transfer", "map"]]
if len(mp) != 1 or mp[0][2:4] != ["2", "131072"] or mp[0][5:] != ["", "", "", ""]:
    fail(f"CSV map row: {mp}")
# the view's data and tables
d = json.loads(re.search(r'id="ht-data">(.*?)</script>', open(sys.argv[4]).read(), re.S).group(1))
S = d["strings"]
vk = sorted((k[1], S[k[10]], S[k[11]]) for k in d["report"]["kernels"] if S[k[0]] == "scale")
if vk != [(3, "1024x1x1", "64x1x1"), (5, "512x1x1", "")]:
    fail(f"view kernel rows: {vk}")
class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.tables = {}; self.h2 = None; self.cell = None; self.cur = None
    def handle_starttag(self, tag, a):
        if tag == "h2": self.h2 = ""
        elif tag == "table": self.cur = self.tables.setdefault(self.title, [])
        elif tag == "tr" and self.cur is not None: self.cur.append([])
        elif tag in ("td", "th") and self.cur is not None: self.cell = ""
    def handle_endtag(self, tag):
        if tag == "h2": self.title, self.h2 = self.h2, None
        elif tag == "table": self.cur = None
        elif tag in ("td", "th") and self.cell is not None:
            self.cur[-1].append(self.cell); self.cell = None
    def handle_data(self, data):
        if self.h2 is not None: self.h2 += data
        if self.cell is not None: self.cell += data
p = Tables(); p.title = ""; p.feed(open(sys.argv[5]).read())
kt = [v for k, v in p.tables.items() if k.startswith("Top kernels")]
if not kt:
    fail(f"no kernel table in the view: {list(p.tables)}")
head, body = kt[0][0], kt[0][1:]
if head[:4] != ["kernel", "global", "local", "count"]:
    fail(f"view kernel table columns: {head}")
if sorted(tuple(row[:4]) for row in body) != [("scale", "1024x1x1", "64x1x1", "3"), ("scale", "512x1x1", "auto", "5")]:
    fail(f"view kernel table: {body}")
tt = {row[0]: row for row in p.tables.get("Transfers and other commands", [])[1:]}
if "map" not in tt or tt["map"][4] != "- (not moved)" or tt["copy_h2d"][4] in ("", "- (not moved)"):
    fail(f"view transfers table: {tt}")
print("ok: 2 kernel configurations, map without GB/s, in JSON, text, CSV and the view")
PY
echo "ok"
