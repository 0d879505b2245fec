# Every traced process and thread is in the trace with its life: a plain
# shell pipeline gives one process trace per process (dash ends them with
# _exit, which runs no destructor), with exit codes, a death by signal
# (told by the parent that waited), and named threads with their lives,
# also where nothing else was recorded.
. "$(dirname "$0")/../integration/lib.sh"

"$HT" record -q -o t -- sh -c 'sh -c "exit 3"; echo abc | cat | wc -c; sh -c "kill -9 \$\$"; true' \
	>out.txt 2>err.txt || fail "record failed: $(cat err.txt)"
assert_eq "$(tr -d ' ' <out.txt)" "4" "the pipeline's output"
check_valid t
bt2_read t b.txt
# sh, sh (exit 3), the pipeline's sh (dash forks one for the builtin echo),
# cat, wc, sh (killed): one directory each
assert_eq "$(ls -d t/*-* | wc -l)" 6 "process directories"
assert_eq "$(ls -d t/*-sh | wc -l)" 4 "sh processes"
assert_eq "$(ls -d t/*-cat t/*-wc | wc -l)" 2 "cat and wc"
for p in t/*-*; do
	[ -s "$p/metadata" ] && [ -s "$p/process" ] || fail "$p has no process stream"
done
"$HT" info t >i.txt || fail "info failed"
assert_eq "$(grep -c '^process ' i.txt)" 6 "processes in info"
assert_eq "$(grep -c 'life .*exit status 3 (said by itself)' i.txt)" 1 "the exit 3"
assert_eq "$(grep -c 'life .*killed by signal 9 (Killed) (said by its parent)' i.txt)" 1 "the kill -9"
assert_eq "$(grep -c 'life .*exit status 0' i.txt)" 4 "the others"
dump t d.txt
assert_eq "$(count 'task kind=process_start' d.txt)" 6 "process starts"
assert_eq "$(count 'task kind=child_exit tid=[0-9]+ code=3 ' d.txt)" 1 "the parent saw exit 3"

# threads that record nothing: started, named, ended
"$HT" record -q -o th -- "$BUILD/bin/cs_threads" 3 >out2.txt 2>err2.txt || fail "record threads: $(cat err2.txt)"
"$HT" info th >i2.txt || fail "info failed"
grep -q 'threads     3 started: [0-9]* "worker-0" [0-9.]* [mu]s, [0-9]* "worker-1" [0-9.]* [mu]s, [0-9]* "worker-2"' i2.txt ||
	fail "thread lives: $(grep threads i2.txt)"
dump th d2.txt
assert_eq "$(count 'task kind=thread_exit .*name="worker-' d2.txt)" 3 "thread exits with their names"
echo ok
