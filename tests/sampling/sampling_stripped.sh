# A stripped program (no symbol table, no DWARF): its frames show as
# module+0xoffset, in the same places, never dropped; .eh_frame survives
# strip, so its stacks still unwind through the CFI.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/samplib.sh"

cp "$CS" cs_stripped
strip --strip-all cs_stripped || fail "strip failed"
if readelf -S cs_stripped | grep -qE '\.symtab|\.debug_info'; then
	fail "cs_stripped still has symbols"
fi
"$HT" record -q -o t -- ./cs_stripped 5 600 >out.txt 2>err.txt || fail "record failed: $(cat err.txt)"
check_valid t
"$HT" report --format json t >r.json || fail "report failed"
json_check r.json '
import re
ctx = [c for c in d["calling_contexts"] if c["frames"][-1] == "clEnqueueNDRangeKernel"]
mod = re.compile(r"^cs_stripped\+0x[0-9a-f]+$")
if len(ctx) != 2:
    fail("two launch paths expected: %r" % [c["frames"] for c in d["calling_contexts"]])
for c in ctx:
    own = [f for f in c["frames"][:-1] if mod.match(f)]
    # _start, main, phase_X and launch_helper: all there, as module+offset
    if len(own) < 4:
        fail("frames of the stripped program: %r" % c["frames"])
    if any(f in ("main", "phase_a", "launch_helper") for f in c["frames"]):
        fail("names from a stripped program: %r" % c["frames"])
    if c["calls"] != 5 or len(c["kernels"]) != 1:
        fail("calls and kernels: %r" % c)
# the two paths differ (phase_a and phase_b are different offsets)
if ctx[0]["frames"] == ctx[1]["frames"]:
    fail("the two paths resolve alike")
top = d["cpu_samples"]["functions"][0]
if not mod.match(top["name"]) or top["file"] != "" or top["line"] != 0:
    fail("the hottest function of the stripped program: %r" % top)
'
"$HT" export t --format collapsed -o t.folded || fail "collapsed export failed"
# _start, libc's start, then main and the hot function, both as module+offset
grep -qE '^cs_stripped;cs_stripped\+0x[0-9a-f]+;(.*;)?cs_stripped\+0x[0-9a-f]+;cs_stripped\+0x[0-9a-f]+ [0-9]+$' t.folded ||
	fail "no stripped frames in the folded stacks: $(head -3 t.folded)"
echo ok
