# PC sampling on PoCL's pthread device: the kernels run on PoCL's worker
# threads (threads of the traced process, sampled like any other); the hot
# lines are the same as on the basic device.
. "$(dirname "$0")/../integration/lib.sh"
export POCL_DEVICES=pthread
. "$(dirname "$0")/pcslib.sh"

"$PCS" >plain.txt 2>plain.err || fail "pcs_prog failed untraced: $(cat plain.err)"
"$HT" record -q --pc-sampling=200us -o t -- "$PCS" >out.txt 2>err.txt || fail "record failed: $(cat err.txt)"
cmp -s plain.txt out.txt || fail "output differs traced: $(cat plain.txt) vs $(cat out.txt)"
check_valid t
"$HT" report --format json t >r.json || fail "report json failed"
hot_lines r.json
"$HT" report t >r.txt || fail "report failed"
grep -q 'every 0.200 ms' r.txt || fail "the period asked: $(grep 'Kernel hot' r.txt)"
exit 0
