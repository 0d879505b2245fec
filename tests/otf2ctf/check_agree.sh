# `hetrace check`, info and the exporters agree on what a trace holds:
#  - times past the clock's range (bad_times.c: CPU states that end, and one
#    that begins, at 17654116122945497726 ns): check names them; every
#    exporter and the view leave those records out with one warning, and
#    babeltrace2 reads the CTF export (it could not before);
#  - entries of a process directory that are not stream files (a symbolic
#    link, a FIFO, a directory): the reader skips them, check says so;
#  - a torn last packet: info counts it among the losses.
. "$(dirname "$0")/../integration/lib.sh"
"$BUILD/bin/bad_times" bt || fail "bad_times"
"$HT" check bt >check.out 2>&1 && fail "check accepted times past the clock's range"
assert_eq "$(grep -c "event 'cpu_state': its end_ns is past the clock's range" check.out)" 1 \
	"check names the event: $(cat check.out)"
for f in ctf chrome perfetto otf2; do
	"$HT" export bt --format $f -o bt-$f 2>exp-$f.err || fail "export $f failed: $(cat exp-$f.err)"
	assert_eq "$(grep -c "warning: 2 records with a time past the clock's range" exp-$f.err)" 1 \
		"$f: one warning: $(cat exp-$f.err)"
done
bt2_read bt-ctf bt.txt
assert_eq "$(grep -c 'hetrace:cpu_state:' bt.txt)" 2 "CPU states in the CTF export"
assert_eq "$(grep -c 'hetrace:region_begin:' bt.txt)" 1 "the region in the CTF export"
/usr/bin/python3 - bt-chrome <<'PY' || fail "chrome export"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
cpu = sorted((e["name"], e["ts"], e["dur"]) for e in ev if e.get("cat") == "cpu_state")
assert cpu == [("blocked", 1.0, 1.0), ("running", 0.0, 1.0)], cpu  # us after the first event
PY
"$HT" view bt -o bt.html 2>view.err || fail "view failed: $(cat view.err)"
grep -q "warning: 2 records with a time past" view.err || fail "view warning: $(cat view.err)"
grep -qE '"span":[0-9]{1,6},' bt.html || fail "the view's span: $(grep -o '"span":[0-9]*' bt.html)"

# entries that are not stream files
"$BUILD/bin/synth_trace" ty || fail "synth_trace"
check_valid ty
ln -s /etc/passwd ty/100-synth/thread-102
mkfifo ty/100-synth/thread-103
mkdir ty/100-synth/thread-104
"$HT" check ty >check.out 2>&1 && fail "check accepted a link, a FIFO and a directory as streams"
for what in "thread-102: a symbolic link" "thread-103: a FIFO" "thread-104: a directory"; do
	grep -qF "ty/100-synth/$what, not a stream file: readers skip it" check.out ||
		fail "check does not say '$what': $(cat check.out)"
done
grep -qF "check: 3 problem(s) in 'ty'" check.out || fail "problem count: $(cat check.out)"

# a torn last packet: counted by info
"$BUILD/bin/synth_trace" torn || fail "synth_trace"
head -c 200 torn/100-synth/thread-101 >>torn/100-synth/thread-101
"$HT" info torn >info.out || fail "info failed"
grep -qF "1 torn packet at stream ends (200 bytes; their events are lost)" info.out ||
	fail "info's lost line: $(grep lost info.out)"
grep -qE "^total .* 0 lost \+ the events of 1 torn packet \(200 bytes\)$" info.out ||
	fail "info's total: $(grep ^total info.out)"
echo "ok"
