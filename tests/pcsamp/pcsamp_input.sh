# Bad input to PC sampling: an unknown period is refused with one line
# (and the usual pointer to --help) before anything runs.
. "$(dirname "$0")/../integration/lib.sh"

for bad in 0 5us 2s 10xs -3 abc 1.5ms; do
	"$HT" record -q --pc-sampling="$bad" -o t -- true >out.txt 2>err.txt && fail "--pc-sampling=$bad accepted"
	assert_eq "$(wc -l <err.txt)" 2 "lines said for --pc-sampling=$bad"
	head -1 err.txt | grep -q "pc-sampling=PERIOD must be a time from 10us to 1s.*'$bad'" ||
		fail "message for $bad: $(cat err.txt)"
	[ ! -e t ] || fail "a trace was made for --pc-sampling=$bad"
done
exit 0
