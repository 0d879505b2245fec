# A real full disk (a small tmpfs): discard mode drops and counts with one
# warning while the program runs on; block mode waits for space and loses
# nothing once space comes back. Needs root to mount; skips (77) otherwise.
. "$(dirname "$0")/lib.sh"
mkdir mnt
mount -t tmpfs -o size=4m tmpfs mnt 2>/dev/null || { echo "cannot mount tmpfs: skipped"; exit 77; }
trap 'umount "$WORK/mnt" 2>/dev/null; rm -rf "$WORK"' EXIT
N=400000

# --no-os: CPU-state records would add discards of their own to the count
"$HT" record -q --no-os --buffer 16K -o mnt/t -- "$PROG" big $N 2>err.txt
assert_eq "$?" 0 "discard: app exit status"
grep -q "No space left on device; events are dropped and counted, the program runs on" err.txt ||
	fail "discard: warning: $(cat err.txt)"
assert_eq "$(grep -c 'hetrace:' err.txt)" 1 "discard: one warning line"
dump mnt/t d.txt
got=$(count ' counter name=big ' d.txt)
lost=$(awk '$2 ~ /^thread-/ && $4 == "discarded" { print $5 }' d.txt)
assert_ge "$lost" 1 "discard: events lost"
assert_eq "$((got + lost))" $N "discard: recorded + discarded"
rm -rf mnt/t

# Block mode: fill the disk, start the program, free the space a second later.
N=100000
head -c $((4096 * 1024 - 96 * 1024)) /dev/zero >mnt/filler
start=$(date +%s%N)
"$HT" record -q --mode block --buffer 16K -o mnt/b -- "$PROG" big $N 2>err2.txt &
rec=$!
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
