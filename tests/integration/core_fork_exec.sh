# fork: the child records into its own directory, the parent's events are not duplicated.
# exec: the image before ends with an exec anchor (not as if killed, its OS
# switches kept) and the new image gets its own directory (same pid); a failed
# exec goes on recording in a new directory; a vfork child's exec leaves the
# parent's recording alone.
# system() and posix_spawn children are traced too. Programs linked with
# -lhetrace and programs that are not (exec_prog) alike.
. "$(dirname "$0")/lib.sh"
"$HT" record -q -o f -- "$PROG" fork 100 || fail "fork: record exited $?"
dump f d.txt
assert_eq "$(ls -d f/*/ | wc -l)" 2 "fork: process directories"
parent=$(awk '/ region_begin name=parent$/ { print $1 }' d.txt | sort -u)
child=$(awk '/ region_begin name=child$/ { print $1 }' d.txt | sort -u)
[ -n "$parent" ] && [ -n "$child" ] && [ "$parent" != "$child" ] || fail "fork: parent '$parent' child '$child'"
assert_eq "$(grep -c "^$parent .* region_begin name=parent$" d.txt)" 100 "fork: parent regions"
assert_eq "$(grep -c "^$child .* region_begin name=child$" d.txt)" 200 "fork: child regions"
assert_eq "$(grep -c "^$child .* name=parent" d.txt)" 0 "fork: parent events duplicated in child"
assert_eq "$(grep -c "^$parent .* region_begin name=parent-after$" d.txt)" 1 "fork: parent after fork"
ppid=$(awk -v c="$child" '$1 == c && / process_info / { split($6, v, "="); print v[2] }' d.txt)
assert_eq "$ppid" "${parent%%-*}" "fork: child's ppid"
check_valid f
bt2_read f b.txt

"$HT" record -q -o e -- "$PROG" exec 50 2>e.err || fail "exec: record exited $?"
! grep -q salvaged e.err || fail "exec: the image before exec looked killed: $(cat e.err)"
dump e d2.txt
assert_eq "$(ls -d e/*/ | wc -l)" 2 "exec: process directories"
assert_eq "$(count ' region_begin name=before-exec$' d2.txt)" 50 "exec: events before exec"
assert_eq "$(count ' counter name=i ' d2.txt)" 50 "exec: events after exec"
pre=$(awk '/ name=before-exec$/ { print $1 }' d2.txt | sort -u)
post=$(awk '/ counter name=i / { print $1 }' d2.txt | sort -u)
[ "$pre" != "$post" ] && [ "${pre%%-*}" = "${post%%-*}" ] || fail "exec: dirs '$pre' '$post'"
assert_eq "$(grep -c "^$pre .* clock_anchor kind=exec" d2.txt)" 1 "exec: the exec anchor"
assert_eq "$(grep -c "^$pre .* clock_anchor kind=exit" d2.txt)" 0 "exec: no exit anchor before exec"
assert_eq "$(grep -c "^$post .* clock_anchor kind=exit" d2.txt)" 1 "exec: the new image's exit"
"$HT" info e | grep -q "ended in exec" || fail "exec: info does not say the image ended in exec"
check_valid e

# A program not linked with libhetrace (glibc-versioned exec references) too.
"$HT" record -q -o n -- "$BUILD/bin/exec_prog" exec 10 2>n.err || fail "exec (unlinked): record exited $?"
! grep -q salvaged n.err || fail "exec (unlinked): the image before exec looked killed: $(cat n.err)"
dump n dn.txt
pre=$(awk '/ name=before-exec$/ { print $1 }' dn.txt | sort -u)
assert_eq "$(count ' region_begin name=after-exec$' dn.txt)" 10 "exec (unlinked): events after exec"
assert_eq "$(grep -c "^$pre .* clock_anchor kind=exec" dn.txt)" 1 "exec (unlinked): the exec anchor"

"$HT" record -q -o x -- "$PROG" execfail 20 >x.out || fail "execfail: record exited $?"
assert_eq "$(cat x.out)" "execv: -1 errno ENOENT" "execfail: what the program saw"
dump x dx.txt
assert_eq "$(ls -d x/*/ | wc -l)" 2 "execfail: process directories"
assert_eq "$(count ' region_begin name=before$' dx.txt)" 20 "execfail: events before"
assert_eq "$(count ' region_begin name=after$' dx.txt)" 20 "execfail: events after"
check_valid x

"$HT" record -q -o v -- "$PROG" vfork 30 2>v.err || fail "vfork: record exited $?"
! grep -q salvaged v.err || fail "vfork: $(cat v.err)"
dump v dv.txt
vp=$(awk '/ name=parent$/ { print $1 }' dv.txt | sort -u)
assert_eq "$(grep -c "^$vp .* region_begin name=parent-after$" dv.txt)" 30 "vfork: parent after"
assert_eq "$(grep -c "^$vp .* clock_anchor kind=exec" dv.txt)" 0 "vfork: parent has no exec anchor"
assert_eq "$(count ' counter name=i ' dv.txt)" 30 "vfork: the exec'd child's events"
check_valid v

"$HT" record -q -o s -- "$PROG" system 5 || fail "system: record exited $?"
dump s d3.txt
assert_eq "$(awk '/ counter name=i / { print $1 }' d3.txt | sort -u | wc -l)" 2 "system+posix_spawn: traced children"
assert_eq "$(count ' counter name=i ' d3.txt)" 10 "system+posix_spawn: child events"
check_valid s
bt2_read s b3.txt

# A child that drops its privileges cannot enter the trace directory (0700,
# ours): it runs untraced, and the trace says so, not only its stderr.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	"$HT" record -o u -- sh -c "'$PROG' single 2; setpriv --reuid=65534 --regid=65534 \
--clear-groups '$PROG' single 3" >u.out 2>u.err || fail "setuid: record exited $?"
	grep -q "this process runs untraced" u.err || fail "setuid: warning: $(cat u.err)"
	grep -q "1 process(es) could not write into the trace and ran untraced" u.err ||
		fail "setuid: record's summary: $(cat u.err)"
	assert_eq "$(grep -c '^untraced=' u/hetrace.index)" 1 "setuid: untraced processes noted"
	grep -qE "^untraced=pid [0-9]+ uid 65534 gid 65534 comm annot_prog: cannot write into the \
trace: Permission denied$" u/hetrace.index || fail "setuid: index: $(grep untraced u/hetrace.index)"
	"$HT" info u >ui.txt || fail "setuid: info failed"
	assert_eq "$(grep -cE "^untraced    pid [0-9]+ uid 65534 gid 65534 comm annot_prog: cannot write \
into the trace: Permission denied$" ui.txt)" 1 "setuid: info's untraced line"
	dump u du.txt
	assert_eq "$(count ' counter name=i ' du.txt)" 2 "setuid: the privileged child's events"
	check_valid u
fi
echo "ok"
