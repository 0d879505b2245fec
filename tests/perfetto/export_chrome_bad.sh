# Chrome JSON export of bad input: a directory that is no trace fails with
# exit status 1 and leaves no output; a truncated trace or one without
# device streams gives a clear error or valid JSON.
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
no_output_on_error chrome
PYTHONPATH=$SRC python3 - nodev.out <<'PY' || fail "export without a device"
import sys
from chrome_check import load, fail, meta
doc, slices = load(sys.argv[1])
if any(e["ph"] in ("X", "f") for e in doc["traceEvents"]):
    fail("device events without a device")
if len(slices) != 5 or meta(doc, "thread_name"):
    fail(f"{len(slices)} slices, threads {meta(doc, 'thread_name')}")
PY
if [ -e cut.out ]; then
	PYTHONPATH=$SRC python3 -c "import sys; from chrome_check import load; load(sys.argv[1])" cut.out ||
		fail "truncated trace: invalid JSON"
fi
echo "ok"
