# A real full disk (a small tmpfs): discard mode drops and counts with one
# warning while the program runs on; block mode waits for space and loses
# nothing once space comes back. Needs root to mount; skips (77) otherwise.
. "$(dirname "$0")/lib.sh"
mkdir mnt
mount -t tmpfs -o size=4m tmpfs mnt 2>/dev/null || { echo "cannot mount tmpfs: skipped"; exit 77; }
trap 'kill_background; umount "$WORK/mnt" 2>/dev/null || umount -l "$WORK/mnt"; rm -rf "$WORK"' EXIT
N=400000

# --no-os: CPU-state records would add discards of their own to the count;
# --no-sample: nothing but the disk may add a warning line
"$HT" record -q --no-os --no-sample --buffer 16K -o mnt/t -- "$PROG" big $N 2>err.txt
assert_eq "$?" 0 "discard: app exit status"
grep -q "No space left on device; events are dropped and counted, the program runs on" err.txt ||
	fail "discard: warning: $(cat err.txt)"
assert_eq "$(grep -c 'hetrace:' err.txt)" 1 "discard: one warning line: $(cat err.txt)"
dump mnt/t d.txt
got=$(count ' counter name=big ' d.txt)
lost=$(awk '$2 ~ /^thread-/ && $4 == "discarded" { print $5 }' d.txt)
assert_ge "$lost" 1 "discard: events lost"
assert_eq "$((got + lost))" $N "discard: recorded + discarded"
rm -rf mnt/t

# Block mode on a disk that stays full: it waits 10 s in all, then drops and
# counts as discard mode does; the trace is valid without repair.
N=100000
# (room for the metadata, the process stream and a few of the thread's packets)
head -c $((4096 * 1024 - 192 * 1024)) /dev/zero >mnt/filler 2>/dev/null
start=$(date +%s%N)
timeout 60 "$HT" record -q --no-os --no-sample --mode block --buffer 16K -o mnt/s -- "$PROG" big $N 2>err3.txt
assert_eq "$?" 0 "block, full: app exit status"
elapsed=$((($(date +%s%N) - start) / 1000000))
[ "$elapsed" -lt 25000 ] || fail "block, full: the program took $elapsed ms (10 s of waits at most)"
assert_ge "$elapsed" 9000 "block, full: the program waited for space (ms)"
grep -q "No space left on device; events are dropped and counted" err3.txt ||
	fail "block, full: warning: $(cat err3.txt)"
"$HT" check mnt/s >c3.txt 2>&1 || fail "block, full: not valid without repair: $(cat c3.txt)"
dump mnt/s d3.txt
got=$(count ' counter name=(big|\?) ' d3.txt)
lost=$(awk '$2 ~ /^thread-/ && $4 == "discarded" { print $5 }' d3.txt)
assert_ge "$lost" 1 "block, full: events lost"
# the thread's discards include its thread_info event when that is gone too
info=$(count ' thread_info ' d3.txt)
assert_eq "$((got + lost))" $((N + 1 - info)) "block, full: recorded + discarded"
# names whose definitions were among the process stream's losses: counted, and said
if grep -q 'name=?' d3.txt; then
	assert_ge "$(awk '$2 == "process" && $4 == "discarded" { print $5 }' d3.txt)" 1 \
		"block, full: process stream losses"
	grep -q "refer to strings whose definitions were lost" c3.txt || fail "block, full: $(cat c3.txt)"
fi
babeltrace2 mnt/s >b3.txt 2>b3.err || fail "block, full: babeltrace2: $(head -3 b3.err)"
grep -qE 'discarded [0-9]* ?events.*within stream ".*/thread-' b3.err ||
	fail "block, full: babeltrace2 saw no loss: $(head -3 b3.err)"
! grep -vE 'discarded [0-9]* ?events' b3.err | grep -q . ||
	fail "block, full: babeltrace2 warned: $(head -3 b3.err)"
rm -rf mnt/s mnt/filler

# Block mode: fill the disk, start the program, free the space a second later.
N=100000
head -c $((4096 * 1024 - 96 * 1024)) /dev/zero >mnt/filler # room for little more than the metadata
start=$(date +%s%N)
"$HT" record -q --mode block --buffer 16K -o mnt/b -- "$PROG" big $N 2>err2.txt &
rec=$!
background $rec
sleep 1
rm mnt/filler
wait $rec
assert_eq "$?" 0 "block: app exit status"
elapsed=$((($(date +%s%N) - start) / 1000000))
assert_ge "$elapsed" 900 "block: the program waited for space (ms)"
dump mnt/b d2.txt
assert_eq "$(count ' counter name=big ' d2.txt)" $N "block: every event recorded"
assert_eq "$(awk '$2 ~ /^thread-/ && $4 == "discarded" { print $5 }' d2.txt)" 0 "block: nothing discarded"
check_valid mnt/b
echo "ok"
