# Hostile and corrupt traces through every reader (issue 20, defects 7 and 8):
# - ids the trace never defined (near 2^32, so an "id + 64" wraps; 0xffff
#   functions; an undefined kernel name) are shown as unknown, never used to
#   size anything: report, exports and view work, in bounded memory;
# - a corrupt device stream ends report, view, info and every export with the
#   same one-line error naming the file and offset, never a crash or a
#   report built from half-read tables.
. "$(dirname "$0")/lib.sh"
"$BUILD/bin/synth_trace" ids badids || fail "synth_trace failed"
for f in text csv json; do
	/usr/bin/time -f "%M" -o rss.$f "$HT" report ids --format $f >r.$f 2>r.$f.err ||
		fail "report --format $f on undefined ids: $(cat r.$f.err)"
	[ "$(tail -1 rss.$f)" -lt 100000 ] || fail "report --format $f used $(tail -1 rss.$f) KB"
done
grep -q '^  ?  ' r.text || grep -q '^  ? ' r.text || fail "undefined names are not shown as '?': $(grep -A4 Regions r.text)"
/usr/bin/python3 - r.json <<'PY' || fail "report json"
import json, sys
r = json.load(open(sys.argv[1]))
regions = {x["name"]: x["count"] for x in r["regions"]}
assert regions.get("?") == 2 and regions.get("step") == 2, regions
api = {x["name"]: x["count"] for x in r["api"]}
assert api.get("?") == 1, api
kernels = [x["name"] for x in r["kernels"]]
assert "?" in kernels and "kern_a" in kernels, kernels
PY
"$HT" export ids --format chrome -o ids.json || fail "chrome export on undefined ids"
"$HT" export ids --format perfetto -o ids.pf || fail "perfetto export on undefined ids"
"$HT" view ids -o ids.html || fail "view on undefined ids"
/usr/bin/time -f "%M" -o rss.sqlite "$HT" export ids --format sqlite -o ids.sqlite ||
	fail "sqlite export on undefined ids"
[ "$(tail -1 rss.sqlite)" -lt 100000 ] || fail "sqlite export used $(tail -1 rss.sqlite) KB"

# a corrupt device stream: its first event's id (extended header) made unknown
"$BUILD/bin/synth_trace" bad || fail "synth_trace failed"
printf '\031\000\000\000' | dd of=bad/100-synth/device-0 bs=1 seek=$((138 + 1)) conv=notrunc 2>/dev/null
want="bad/100-synth/device-0: offset 138: unknown event id 25 in a device stream"
for cmd in "report bad" "report bad --format json" "report bad --format csv" \
	"view bad -o v.html" "export bad --format chrome -o c.json" \
	"export bad --format perfetto -o p.pf" "export bad --format ctf -o ctf.out" "info bad"; do
	# shellcheck disable=SC2086
	"$HT" $cmd >out.txt 2>err.txt && fail "hetrace $cmd accepted a corrupt trace"
	rc=$?
	[ "$rc" = 1 ] || fail "hetrace $cmd: exit status $rc (want 1): $(cat err.txt)"
	grep -q "Segmentation\|Abort\|sanitizer" err.txt && fail "hetrace $cmd crashed: $(cat err.txt)"
	grep -qF "$want" err.txt || fail "hetrace $cmd: error '$(cat err.txt)', want '$want'"
	[ "$(grep -c . err.txt)" = 1 ] || fail "hetrace $cmd: more than one error line: $(cat err.txt)"
	case $cmd in info*) ;; *) [ ! -s out.txt ] || fail "hetrace $cmd printed output: $(head -3 out.txt)" ;; esac
done
[ ! -e v.html ] && [ ! -e c.json ] && [ ! -e p.pf ] && [ ! -e ctf.out ] || fail "a failed command left an output"
echo "ok"
