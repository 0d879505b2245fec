# Helpers of the PC-sampling tests (sourced after tests/integration/lib.sh).
PCS=$BUILD/bin/pcs_prog
[ -x "$PCS" ] || { echo "SKIP: pcs_prog not built (no OpenCL)"; exit 77; }
"$PCS" 10 >/dev/null 2>&1 || { echo "SKIP: no usable OpenCL device"; exit 77; }

# hot_lines JSON: asserts hot_a's hottest line is 4 and hot_b's is 11, each with
# most of its kernel's samples, and that no stall reason is invented
hot_lines() {
	json_check "$1" '
rows = d["kernel_source_lines"]
def kernel(k):
    r = sorted([x for x in rows if x["kernel"] == k], key=lambda x: -x["samples"])
    if not r:
        fail("no lines for %s: %r" % (k, rows))
    return r
for k, line in (("hot_a", 4), ("hot_b", 11)):
    r = kernel(k)
    total = sum(x["samples"] for x in r)
    if r[0]["line"] != line:
        fail("%s: hottest line %d, expected %d: %r" % (k, r[0]["line"], line, r[:3]))
    if r[0]["samples"] < 20 or r[0]["samples"] < 0.8 * total:
        fail("%s: line %d has %d of %d samples" % (k, line, r[0]["samples"], total))
    if not r[0]["file"].startswith("<program 0x"):
        fail("%s: file %r" % (k, r[0]["file"]))
    for x in r:
        if x["stall_reasons"]:
            fail("a CPU device reported stall reasons: %r" % x)
        if set(x) != {"kernel", "file", "line", "samples", "stall_reasons"}:
            fail("keys: %r" % sorted(x))
'
}
