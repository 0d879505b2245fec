# Two busy threads pinned to one CPU: each is runnable but not running about
# half of the time. The victim's 400 ms region must hold about 200 ms of
# preempted intervals (>= 70%), and the report's table must say so too.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/oslib.sh"
record_os -q -o t -- "$OSP" preempt 200 || fail "record exited $?"
need_perf t
dump t d.txt
$CHECK invariants d.txt >inv.txt || fail "invariants: $(cat inv.txt)"
read -r pre region < <($CHECK state d.txt victim contended preempted) || fail "no preempted state"
echo "victim preempted $pre ms of a $region ms region (induced: about 200 ms)"
at_least "$pre" 140 "victim preempted ms (70% of 200)"
at_most "$pre" "$region" "victim preempted ms vs the region"
read -r blk _ < <($CHECK state d.txt victim contended blocked)
at_most "$blk" 40 "victim blocked ms while spinning"
"$HT" report t --format json >r.json || fail "report failed"
python3 - r.json <<'PY' || fail "report CPU states"
import json, sys
r = json.load(open(sys.argv[1]))
th = {t["name"]: t for t in r["os"]["threads"]}
for name in ("victim", "hog"):
    assert th[name]["preempted_ns"] >= 140e6, (name, th[name])
    # about half each when nothing else runs; far less when the machine is busy
    assert th[name]["running_ns"] >= 10e6, (name, th[name])
PY
echo "ok"
