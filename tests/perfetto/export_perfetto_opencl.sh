# Perfetto export of a real OpenCL run (vecadd on PoCL): one queue track
# with the two writes, the kernel and the (blocking) read, each linked by a
# flow from its enqueue call, the read's flow too although its command
# reaches the timeline before the call's END.
SRC=$(cd "$(dirname "$0")" && pwd)
. "$SRC/../integration/lib.sh"
. "$SRC/export_lib.sh"
record_vecadd r
export_ok r perfetto r.pftrace
pf_check r.pftrace d.txt
grep -E '^(track|flow|summary)|GPU' d.txt
assert_eq "$(count 'kind=custom .* name="GPU ' d.txt)" 1 "queue tracks"
# the queue's track name, with PoCL's device name; escaped for grep -E as Q
name=$(sed -n 's/.*kind=custom .* name="\(GPU [^"]*\)".*/\1/p' d.txt)
case "$name" in "GPU 0 ("*") / queue 0x"*) ;; *) fail "queue track name: $name" ;; esac
Q=$(printf '%s' "$name" | sed 's/[][\.*^$()+?{}|]/\\&/g')
assert_eq "$(count "^slice track=\"$Q\" name=\"copy_h2d\" cat=\"copy_h2d\" .*bytes=262144;" d.txt)" 2 "writes"
assert_eq "$(count "^slice track=\"$Q\" name=\"vecadd\" cat=\"kernel\" .*global_work_size=65536" d.txt)" 1 "kernel"
assert_eq "$(count "^slice track=\"$Q\" name=\"copy_d2h\" cat=\"copy_d2h\" .*bytes=262144;" d.txt)" 1 "read"
assert_eq "$(count "^flow from=\"clEnqueueWriteBuffer\"@\"[^\"]*\" to=\"copy_h2d\"@\"$Q\"$" d.txt)" 2 "write flows"
assert_eq "$(count "^flow from=\"clEnqueueNDRangeKernel\"@\"[^\"]*\" to=\"vecadd\"@\"$Q\"$" d.txt)" 1 "kernel flow"
assert_eq "$(count "^flow from=\"clEnqueueReadBuffer\"@\"[^\"]*\" to=\"copy_d2h\"@\"$Q\"$" d.txt)" 1 "read flow"
assert_eq "$(count '^flow ' d.txt)" 4 "flows"
# OS scheduling (recorded by default where perf events are allowed): one
# "CPU state" track under the thread, slices named by state with their cpu
n=$(count '^slice track="CPU state"' d.txt)
if [ "$n" -gt 0 ]; then
	assert_eq "$(count 'kind=custom .* name="CPU state" parent=' d.txt)" 1 "CPU state tracks"
	assert_eq "$(count '^slice track="CPU state" name="(running|preempted|blocked)" cat="cpu_state" ts=[0-9]+ dur=[0-9]+ args=\{cpu=[0-9]+\}$' d.txt)" "$n" "CPU state slices"
fi
echo "ok"
