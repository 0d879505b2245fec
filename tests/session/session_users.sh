#!/bin/bash
# Programs of another user never write into root's session: run as nobody
# with root's session variables (setpriv), a program runs as it would
# without them and nothing of it lands in the trace, while root's program
# does. Needs root and setpriv.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 || { echo "skip: needs setpriv and nobody"; exit 77; }
. "$HERE/lib_session.sh"

# nobody must reach the program and the libraries: a world-readable copy.
mkdir -p "$WORK/pub/bin"
cp -r "$BUILD/lib" "$WORK/pub/lib"
cp "$SPROG" "$WORK/pub/bin/"
chmod -R a+rX "$WORK/pub"
chmod 755 "$WORK"
PUB=$WORK/pub/bin/session_prog
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
SENV_PUB=$(echo "$SENV" | sed "s|$BUILD/lib|$WORK/pub/lib|g")

"$HT" session start -q -o "$WORK/tr" || fail "session start failed"
[ "$(stat -c %a "$WORK/tr")" = 700 ] || fail "session trace directory is not 0700"
$NOBODY "$PUB" print n >plain.out 2>plain.err
rc_plain=$?
$NOBODY bash -c "$SENV_PUB; exec \"\$@\"" nobody-run "$PUB" print n >env.out 2>env.err &
N=$!
wait $N
rc_env=$?
assert_eq "$rc_env" "$rc_plain" "nobody's exit status with root's session variables"
cmp -s plain.out env.out || fail "nobody's stdout differs with root's session variables"
cmp -s plain.err env.err || fail "nobody's stderr differs: $(cat env.err)"
# nobody cannot reach root's control page or trace even by hand
$NOBODY sh -c "echo x >>'$HETRACE_SESSION_DIR/default.ctl'" 2>/dev/null && fail "nobody wrote into root's control page"
$NOBODY sh -c "mkdir '$WORK/tr/intruder'" 2>/dev/null && fail "nobody created a directory in root's trace"
(eval "$SENV_PUB" && exec "$PUB" print root) >/dev/null 2>&1 &
R=$!
wait $R
"$HT" session stop -q || fail "session stop failed"
dump tr d.txt
ticks d.txt $R >t.root
assert_eq "$(wc -l <t.root)" 1000 "ticks of root's program"
ls tr | grep -q "^$N-" && fail "nobody's program ($N) is in root's session trace"
[ -z "$(find tr ! -user root)" ] || fail "files of another user in the trace: $(find tr ! -user root)"
echo "ok: root's program recorded, nobody's ($N) not"
