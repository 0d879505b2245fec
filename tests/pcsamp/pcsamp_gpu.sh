# CUDA PC sampling on a GPU (label gpu; exits 77 without one): the spin
# kernel's hottest line is the line marked HOT_LINE in pcs_gpu.cu, with
# stall reasons from CUPTI; output identical traced and untraced.
. "$(dirname "$0")/../integration/lib.sh"
SRC=$(cd "$(dirname "$0")" && pwd)/pcs_gpu.cu
PROG=$BUILD/bin/pcs_gpu
[ -x "$PROG" ] || { echo "SKIP: pcs_gpu not built (no nvcc)"; exit 77; }
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU ||
	{ echo "SKIP: no GPU"; exit 77; }
"$PROG" >plain.txt 2>&1
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "pcs_gpu failed untraced: $(cat plain.txt)"
"$HT" record -q --pc-sampling -o t -- "$PROG" >out.txt 2>err.txt || fail "record failed: $(cat err.txt)"
cmp -s plain.txt out.txt || fail "output differs traced"
check_valid t
bt2_read t b.txt
hot=$(grep -n 'HOT_LINE' "$SRC" | cut -d: -f1)
"$HT" report --format json t >r.json || fail "report json failed"
python3 - r.json "$hot" <<'PY' || fail "hot line check"
import json, sys
d = json.load(open(sys.argv[1]))
hot = int(sys.argv[2])
rows = [r for r in d["kernel_source_lines"] if "spin" in r["kernel"]]
if not rows:
    sys.exit("no lines for spin: %r" % d["kernel_source_lines"][:5])
rows.sort(key=lambda r: -r["samples"])
total = sum(r["samples"] for r in rows)
if rows[0]["line"] != hot or not rows[0]["file"].endswith("pcs_gpu.cu"):
    sys.exit("hottest %r, expected line %d" % (rows[0], hot))
if rows[0]["samples"] < 0.5 * total or not rows[0]["stall_reasons"]:
    sys.exit("line %d: %r of %d" % (hot, rows[0], total))
PY
exit 0
