# Every event class written by the generated encoders, read back by
# babeltrace2 (through the generated TSDL) and by our generated decoders:
# every field of every event must agree.
. "$(dirname "$0")/lib.sh"
SRC=$2
"$BUILD/bin/every_class" t || fail "every_class exited $?"
check_valid t
bt2_read t b.txt
dump t d.txt
/usr/bin/python3 "$SRC/tests/integration/format_every_class.py" t d.txt "$SRC/src/format/events.def" ||
	fail "babeltrace2 and hetrace disagree"
echo "ok"
