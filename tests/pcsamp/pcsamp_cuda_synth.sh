# The analysis of CUDA's PC samples without a GPU (pcs_synth's trace): lines
# summed over their instructions, stall reasons per line, an instruction
# without a line counted apart, the json key's exact shape, the text
# report's breakdown, and the trace readable by hetrace check.
. "$(dirname "$0")/../integration/lib.sh"

"$BUILD/bin/pcs_synth" t || fail "pcs_synth failed"
check_valid t
"$HT" report --format json t >r.json || fail "report json failed"
python3 - r.json <<'PY' || fail "kernel_source_lines"
import json, sys
rows = json.load(open(sys.argv[1]))["kernel_source_lines"]
want = [{"kernel": "spin", "file": "/src/k.cu", "line": 12, "samples": 45,
         "stall_reasons": {"long_scoreboard": 30, "selected": 15}},
        {"kernel": "spin", "file": "/src/k.cu", "line": 13, "samples": 4,
         "stall_reasons": {"math_pipe_throttle": 4}}]
if rows != want:
    sys.exit("got %r\nexpected %r" % (rows, want))
PY
"$HT" report t >r.txt || fail "report failed"
grep -qE '^ +12 +45 +88\.2%  +\[long_scoreboard 67%, selected 33%\]' r.txt ||
	fail "line 12 in the text report: $(grep -A8 'kernel spin' r.txt)"
grep -q 'kernel spin: 51 sample(s) in 1 of 1 launch(es)' r.txt || fail "the kernel's line: $(grep 'kernel spin' r.txt)"
grep -qE '^ +- +2 +3\.9%  \(instructions without a line' r.txt || fail "samples without a line"
grep -q 'stall reasons: not available' r.txt && fail "a CUDA kernel said to have no stall reasons"
grep -q 'cubin 1+0x10 (line 12) 40' r.txt || fail "the hottest instruction: $(grep hottest r.txt)"
exit 0
