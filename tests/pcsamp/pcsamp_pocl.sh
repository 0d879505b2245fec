# PC sampling on PoCL's basic device (kernels run on the calling thread):
# each kernel's hottest line is its loop's line of the program string, the
# program's output is byte-identical traced and untraced, the trace passes
# hetrace check and babeltrace2, the report shows the lines with their text
# and says a CPU device has no stall reasons, and kernels too short to be
# sampled get one line each.
. "$(dirname "$0")/../integration/lib.sh"
export POCL_DEVICES=basic
. "$(dirname "$0")/pcslib.sh"

"$PCS" >plain.txt 2>plain.err || fail "pcs_prog failed untraced: $(cat plain.err)"
"$HT" record -q --pc-sampling -o t -- "$PCS" >out.txt 2>err.txt || fail "record failed: $(cat err.txt)"
cmp -s plain.txt out.txt || fail "output differs traced: $(cat plain.txt) vs $(cat out.txt)"
[ ! -s err.txt ] || fail "record said something: $(cat err.txt)"
check_valid t
bt2_read t b.txt
dump t d.txt
assert_eq "$(count ' program_source ' d.txt)" 1 "program_source events (one short program)"
assert_eq "$(count ' program_kernels ' d.txt)" 1 "program_kernels events"
grep -q 'names = "hot_a;hot_b;tiny"\|hot_a;hot_b;tiny' d.txt || fail "kernel names: $(grep program_kernels d.txt)"
[ -n "$(find t/pocl-cache -name 'hot_a.so' | head -1)" ] || fail "PoCL's kernel object is not in the trace"

"$HT" report --format json t >r.json || fail "report json failed"
hot_lines r.json
"$HT" report t >r.txt || fail "report failed"
grep -q '^Kernel hot lines' r.txt || fail "no hot-lines section: $(tail -20 r.txt)"
grep -qE '^ +4 +[0-9]+ +[0-9.]+%  for \(int k = 0; k < n; k\+\+\) v = v \* 1.0001f \+ 0.5f;' r.txt ||
	fail "hot_a's line with its text: $(grep -A6 'kernel hot_a' r.txt)"
grep -q 'stall reasons: not available on this device' r.txt || fail "stall reasons line"
"$HT" report --format csv t | grep -q '^kernel_source_line,hot_b,"\?<program 0x[0-9a-f]*>"\?,11,' ||
	fail "csv rows"

# the view: the page's kernel_lines data, and a kernel's source with a bar per
# line when it is selected as a click would (#kernel=hot_b), in headless Chromium
"$HT" view t -o v.html 2>view.err || fail "view failed: $(cat view.err)"
python3 - v.html <<'EOF' || fail "the view's kernel lines"
import json, re, sys
d = json.loads(re.search(r'id="ht-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
S = d["strings"]
k = {S[x["kernel"]]: x for x in d["kernel_lines"]}
# tiny runs for microseconds: a sample can land in it on a busy machine, but few
n = {name: sum(l[1] for l in x["lines"]) for name, x in k.items()}
if not {"hot_a", "hot_b"} <= set(k) <= {"hot_a", "hot_b", "tiny"} or \
        n.get("tiny", 0) * 10 > min(n["hot_a"], n["hot_b"]):
    sys.exit("kernels and their samples: %r" % n)
for name, line in (("hot_a", 4), ("hot_b", 11)):
    x = k[name]
    top = max(x["lines"], key=lambda l: l[1])
    if top[0] != line or x["stalls"] != 0 or "__kernel void hot_a" not in x["source"]:
        sys.exit("%s: %r" % (name, {a: x[a] for a in ("lines", "stalls")}))
EOF
chromium=$(command -v chromium || true)
if [ -n "$chromium" ]; then
	timeout 50 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --disable-component-update --disable-sync --user-data-dir="$WORK/chrome" \
		--dump-dom "file://$WORK/v.html#kernel=hot_b" >dom.html 2>dom.log ||
		fail "chromium failed: $(tail -3 dom.log)"
	grep -q 'data-ready="1"' dom.html || fail "the page's script did not finish"
	details=$(grep -o '<div id="details">.*' dom.html)
	grep -q 'PC samples (stall reasons: not available on this device)' <<<"$details" ||
		fail "the details of hot_b: $details"
	# one row per line of the program (14), line 11's bar the widest (100%)
	[ "$(grep -o '<div class="pcl">' <<<"$details" | wc -l)" = 1 ] || fail "one source panel expected"
	rows=$(grep -o '<div class="pcl">.*' <<<"$details" | grep -o '<div><span>[0-9]*</span>' | wc -l)
	assert_eq "$rows" 14 "source rows in the view"
	grep -qE '<div><span>11</span><span title="[0-9,]+ samples \([0-9.]+%\)"><i style="width: 100%;">' <<<"$details" ||
		fail "line 11's bar: $(grep -o '<div><span>11</span>.\{0,120\}' <<<"$details")"
	grep -qE '<div><span>4</span><span title="0 samples \(0.0%\)"><i style="width: 0%;">' <<<"$details" ||
		fail "line 4 (hot_a's) has no bar in hot_b: $(grep -o '<div><span>4</span>.\{0,120\}' <<<"$details")"
fi

# kernels too short to be sampled (10 trips, a period of 1 s): one line each that
# got no sample, the rest recorded. On a busy machine the one sample a second can
# land in a kernel: at most one kernel then has lines, and no "no PC samples" line
"$HT" record -q --pc-sampling=1s -o s -- "$PCS" 10 >/dev/null 2>err.txt || fail "record at 1s: $(cat err.txt)"
"$HT" report s >s.txt || fail "report failed"
"$HT" report --format json s >s.json || fail "report json failed"
sampled=$(/usr/bin/python3 -c 'import json, sys
print(" ".join(sorted({x["kernel"] for x in json.load(open(sys.argv[1]))["kernel_source_lines"]})))' s.json)
[ "$(wc -w <<<"$sampled")" -le 1 ] || fail "kernels sampled at 1s over 10 trips: $sampled"
for k in hot_a hot_b tiny; do
	want=1
	[[ " $sampled " == *" $k "* ]] && want=0
	assert_eq "$(grep -c "kernel '$k': no PC samples: its 1 launch(es) ran .* too short for a sampling period of 1000.000 ms" s.txt)" $want "the line of kernel $k (sampled: '$sampled')"
done
json_check s.json 'if not any(k["name"] == "tiny" for k in d["kernels"]): fail("the kernels are recorded")'

# --force replaces a trace with its PoCL cache; a link in that cache is not PoCL's: refused
ln -s /etc/passwd t/pocl-cache/stranger
"$HT" record -q -f --pc-sampling -o t -- "$PCS" 10 >/dev/null 2>err.txt && fail "--force took a trace holding a link"
grep -q "holds 'pocl-cache/stranger'" err.txt || fail "the refusal: $(cat err.txt)"
rm t/pocl-cache/stranger
"$HT" record -q -f --pc-sampling -o t -- "$PCS" 10 >/dev/null 2>err.txt || fail "--force over a pc-sampling trace: $(cat err.txt)"
check_valid t

# without --pc-sampling: no section, an empty key
"$HT" record -q -o u -- "$PCS" 10 >/dev/null 2>&1 || fail "record without --pc-sampling failed"
"$HT" report --format json u >u.json || fail "report json failed"
json_check u.json 'if d["kernel_source_lines"] != []: fail("lines without --pc-sampling")'
"$HT" report u | grep -q 'Kernel hot lines' && fail "a hot-lines section without --pc-sampling"
exit 0
