# The command line: exit statuses, signal forwarding, and one clear error
# line for every kind of bad input.
. "$(dirname "$0")/lib.sh"

# expect STATUS PATTERN CMD...: runs CMD, checks its exit status and that stderr matches
expect() {
	want=$1 pat=$2
	shift 2
	"$@" >out.txt 2>err.txt
	got=$?
	[ "$got" = "$want" ] || fail "'$*' exited $got, expected $want: $(cat err.txt)"
	[ -z "$pat" ] || grep -qE -- "$pat" err.txt || fail "'$*' stderr: '$(cat err.txt)', expected /$pat/"
}

expect 2 "unknown command 'bogus'" "$HT" bogus
expect 2 "option '-z' is unknown" "$HT" record -z -- true
expect 2 "no command given" "$HT" record -o x
expect 2 "--mode must be discard or block" "$HT" record --mode fast -- true
expect 2 "--buffer must be a power of two" "$HT" record --buffer 1000 -- true
# 2^64 + 64K: a size that wraps is no size
expect 2 "--buffer must be a power of two from 16K to 16M, not '18014398509482048K'" \
	"$HT" record --buffer 18014398509482048K -- true
expect 2 "unknown source 'vulkan'" "$HT" record --api opencl,vulkan -- true
expect 2 "no trace directory given" "$HT" info
expect 2 "unknown option '--fix'" "$HT" check --fix x

# exit statuses: the command's own, 128+signal, 127 for a missing command
expect 0 "" "$HT" record -q -o a -- true
expect 3 "" "$HT" record -q -o b -- sh -c 'exit 3'
expect 143 "was killed by signal 15" "$HT" record -o c -- sh -c 'kill -TERM $$'
expect 127 "cannot run 'no-such-command-xyz': No such file or directory" "$HT" record -o d -- no-such-command-xyz
[ ! -e d ] || fail "a trace directory was left behind for a command that did not run"

# output directory rules
mkdir full && touch full/precious
expect 1 "trace directory 'full' is not empty; use --force" "$HT" record -o full -- touch ran
[ ! -e ran ] || fail "the command ran although the output was refused"
expect 0 "" "$HT" record -q -o a --force -- "$PROG" single 3
[ -e full/precious ] || fail "--force on a previous trace removed something else"
assert_eq "$(ls a | wc -l)" 2 "--force replaced the earlier trace (index + one process)"
expect 1 "cannot create trace directory 'notadir/x'" sh -c "touch notadir && exec '$HT' record -o notadir/x -- touch ran2"
[ ! -e ran2 ] || fail "the command ran although the output was unwritable"
# --force replaces an earlier trace and nothing else
mkdir -p mixed/my-results && touch mixed/my-results/metadata && echo x >mixed/my-results/notes.txt
expect 1 "trace directory 'mixed' holds 'my-results', which hetrace did not write; --force replaces only an earlier trace" \
	"$HT" record --force -o mixed -- touch ran3
[ ! -e ran3 ] || fail "the command ran although --force refused the output"
assert_eq "$(cat mixed/my-results/notes.txt 2>&1)" x "--force and a user's directory"
cp -r a mine && p=$(ls -d mine/*/) && echo y >"${p}notes.txt"
expect 1 "holds '[0-9]+-annot_prog/notes.txt', which hetrace did not write" \
	"$HT" record --force -o mine -- true
assert_eq "$(cat "${p}notes.txt" 2>&1)" y "--force and a user's file in a process directory"
[ -n "$(ls mine/*/thread-*)" ] || fail "a refused --force removed part of the earlier trace"
cp -r a export && sed -i '1a /* export = "ctf" */' export/*/metadata
expect 1 "holds '[0-9]+-annot_prog', which hetrace did not write" "$HT" record --force -o export -- true
# what a killed recording leaves behind is hetrace's too
cp -r a left && p=$(ls -d left/*/) && touch left/.doorbell "${p}.thread-1.cur" "${p}.os-0.1.ring" \
	"${p}.metadata.tmp" "${p}device-3"
expect 0 "" "$HT" record -q --force -o left -- "$PROG" single 2
assert_eq "$(ls -A left | wc -l)" 2 "--force replaced a killed recording (index + one process)"

# an existing directory must be ours alone: others could read or change the trace
mkdir open && chmod 0777 open
expect 1 "trace directory 'open' is writable by others \(mode 0777\), who could change the trace" \
	"$HT" record -o open -- true
mkdir theirs
if [ "$(id -u)" = 0 ] && chown 65534 theirs; then
	expect 1 "trace directory 'theirs' belongs to another user \(uid 65534\)" \
		"$HT" record -o theirs -- true
	chmod 1777 theirs
	expect 1 "belongs to another user" "$HT" record -o theirs -- true
fi
ln -s "$WORK/a" link
expect 1 "'link' exists and is not a directory" "$HT" record -o link -- true
[ "$(stat -c %a a)" = 700 ] || fail "trace directory mode $(stat -c %a a)"
bad=$(find a -type f ! -perm 600 | head -1)
[ -z "$bad" ] || fail "file with mode other than 0600: $bad"
# what is made of a trace is as private as the trace, whatever the umask
mkdir made
for f in perfetto chrome otf2 ctf; do
	(umask 022 && "$HT" export a --format $f -o made/$f 2>/dev/null) || fail "export --format $f"
done
(umask 022 && "$HT" view a -o made/v.html 2>/dev/null) || fail "view"
bad=$(find made -mindepth 1 \( -type f ! -perm 600 \) -o \( -type d ! -perm 700 \) | head -3)
[ -z "$bad" ] || fail "export output open to others: $(stat -c '%a %n' $bad)"

# bad HETRACE_* values: one warning each, defaults used, recording goes on
HETRACE_MODE=sideways HETRACE_BUFFER=3 HETRACE_API=nvtx,opencl2 "$HT" record -q -o e -- \
	"$PROG" single 5 2>err.txt || fail "record with bad env values failed"
assert_eq "$(grep -c "hetrace: ignoring HETRACE_MODE='sideways'" err.txt)" 1 "HETRACE_MODE warning"
assert_eq "$(grep -c "hetrace: ignoring HETRACE_BUFFER='3'" err.txt)" 1 "HETRACE_BUFFER warning"
assert_eq "$(grep -c "hetrace: ignoring 'opencl2' in HETRACE_API='nvtx,opencl2'" err.txt)" 1 \
	"HETRACE_API warning"
assert_eq "$(wc -l <err.txt)" 3 "one line per bad value"
"$DUMP" e | grep -c ' counter name=i ' | grep -qx 5 || fail "bad env values lost events"
HETRACE_BUFFER=18014398509482048K HETRACE_RING=99999999999999999999 "$HT" record -q -o e2 -- \
	"$PROG" single 1 2>err.txt || fail "record with overflowing env values failed"
assert_eq "$(cat err.txt)" "hetrace: ignoring HETRACE_BUFFER='18014398509482048K': expected a power \
of two from 16K to 16M; using 64K
hetrace: ignoring HETRACE_RING='99999999999999999999': expected 0 or 2 to 4096 packets; using 16" \
	"overflowing env values"

# SIGTERM sent to hetrace alone reaches the command
"$HT" record -q -o g -- sleep 30 &
rec=$!
background $rec
sleep 0.5
kill -TERM $rec
wait $rec
assert_eq "$?" 143 "forwarded SIGTERM"

# reading bad traces: a clear message naming file and offset, never a crash
expect 1 "not a hetrace trace \(no process directory" "$HT" info full
expect 1 "No such file or directory" "$HT" info does-not-exist
cp -r a bad1 && printf 'garbage' > bad1/*/metadata
expect 1 "metadata: not hetrace CTF metadata" "$HT" info bad1
cp -r a bad2 && f=$(ls bad2/*/thread-* | head -1) && printf '\x01\x02\x03\x04' | dd of="$f" bs=1 seek=0 conv=notrunc 2>/dev/null
expect 1 "thread-[0-9]+: offset 0: bad packet magic" "$HT" check bad2
cp -r a bad3 && f=$(ls bad3/*/thread-* | head -1) && truncate -s 100 "$f"
expect 1 "thread-[0-9]+: offset 0: torn last packet \(100 bytes\)" "$HT" check bad3
expect 0 "" "$HT" check --repair bad3
cp -r a bad4 && f=$(ls bad4/*/thread-* | head -1) && printf '\x1f\xff\xff\xff\xff' | dd of="$f" bs=1 seek=126 conv=notrunc 2>/dev/null
expect 1 "thread-[0-9]+: offset 126: (unknown event id|timestamp)" "$HT" check bad4
echo "ok"
