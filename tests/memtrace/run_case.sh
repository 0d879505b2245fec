#!/usr/bin/env bash
# Memory-access tracing on PoCL (CTest memtrace_*): mt_prog's kernels with
# known access patterns recorded with --memory-access, the report's
# memory_access counts checked exactly, the raw records read by babeltrace2,
# and what the program saw compared with an untraced run.
#
#   run_case.sh CASE BUILD_DIR
set -euo pipefail
case_=$1
build=$(cd "$2" && pwd)
bin=$build/bin
ht=$bin/hetrace
prog=$bin/mt_prog
work=$(mktemp -d "${TMPDIR:-/tmp}/ht-memtrace-$case_.XXXXXX")
trap 'rm -rf "$work"' EXIT
export POCL_DEVICES=${POCL_DEVICES:-basic}
export POCL_KERNEL_CACHE=1
if [ "$case_" = cuda_gpu ]; then
	if ! command -v nvidia-smi >/dev/null 2>&1 || [ "$(nvidia-smi -L 2>/dev/null | grep -c GPU)" = 0 ]; then
		echo "no GPU: skipped"
		exit 77
	fi
else
	[ -x "$bin/hetrace-cl-rewrite" ] || { echo "no OpenCL C rewriter (libclang-14-dev): skipped"; exit 77; }
	"$prog" queries >/dev/null 2>&1 || { echo "no OpenCL device: skipped"; exit 77; }
fi

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# record NAME [hetrace options] -- CMD...: trace into $work/NAME, output in NAME.out/.err
record() {
	local name=$1
	shift
	"$ht" record -q -o "$work/$name" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
		fail "recorded run failed: $(cat "$work/$name.err")"
}

# same NAME CMD...: the program's output is the same untraced and traced (options in $REC)
same() {
	local name=$1
	shift
	"$@" >"$work/$name.plain" 2>"$work/$name.plain.err"
	record "$name" ${REC:-} -- "$@"
	diff -u "$work/$name.plain" "$work/$name.out" || fail "the program saw something different when traced"
}

report_json() { # report_json NAME: the JSON report
	"$ht" report --format json "$work/$1" >"$work/$1.json" || fail "report failed on $1"
}

# check NAME PYTHON: runs assertions on the report as r (a dict), rows as m[(kernel, arg)]
check() {
	python3 - "$work/$1.json" "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
m = {(x["kernel"], x["arg"]): x for x in r["memory_access"]}
t = r["memory_access_totals"]
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
exec(sys.argv[2])
EOF
}

babeltrace_count() { # babeltrace_count NAME CLASS: events of CLASS babeltrace2 reads, no warnings
	babeltrace2 "$work/$1" >"$work/$1.bt" 2>"$work/$1.bt.err" || fail "babeltrace2 failed: $(head -3 "$work/$1.bt.err")"
	[ ! -s "$work/$1.bt.err" ] || fail "babeltrace2 warned: $(head -3 "$work/$1.bt.err")"
	grep -c "hetrace:$2:" "$work/$1.bt" || true
}
babeltrace_accesses() { # babeltrace_accesses NAME: the accesses in the runs of its mem_accesses events
	babeltrace_count "$1" mem_accesses >/dev/null
	grep "hetrace:mem_accesses:" "$work/$1.bt" | grep -o "count = [0-9]*" | awk '{n += $3} END {print n + 0}'
}

N=4096
# Exact counts need block mode: in discard mode (the default) a loaded machine
# drops records, whole launches of them at times, and counts them.
case $case_ in
patterns | linked)
	# linked: the same kernels from a program compiled, then linked alone
	REC="--memory-access --mode block" same patterns "$prog" $case_ $N
	loads=$(sed -n 's/^loop .*(\([0-9]*\) loads in the loop)$/\1/p' "$work/patterns.out")
	report_json patterns
	check patterns "
N = $N
for k, a, key in [('unit', 0, 'reads'), ('unit', 1, 'writes'), ('stride2', 0, 'reads'),
                  ('stride2', 1, 'writes'), ('scatter', 0, 'reads'), ('scatter', 1, 'reads'),
                  ('scatter', 2, 'writes'), ('atomics', 0, 'atomics'), ('loop', 0, 'reads'),
                  ('loop', 2, 'writes')]:
    eq(m[(k, a)][key], N, '%s argument %d %s' % (k, a, key))
    eq(m[(k, a)]['bytes_read' if key == 'reads' else 'bytes_written' if key == 'writes' else 'bytes_atomic'], 4 * N, k + ' bytes')
    for other in ('reads', 'writes', 'atomics'):
        if other != key:
            eq(m[(k, a)][other], 0, '%s argument %d %s' % (k, a, other))
eq(m[('loop', 1)]['reads'], $loads, 'loads in the loop (helper function, data-dependent trip count)')
eq(m[('unit', 0)]['strides'], {'4': N - N // 32}, 'unit stride')
eq(m[('stride2', 0)]['strides'], {'8': N - N // 32}, 'stride 2')
eq(m[('stride2', 0)]['range'], [0, 8 * N - 4], 'stride 2 range')
eq(m[('unit', 0)]['sectors_per_access'], 4.0, 'unit stride: 4 sectors per 32 lanes')
eq(m[('stride2', 0)]['sectors_per_access'], 8.0, 'stride 2: 8 sectors per 32 lanes')
eq(m[('scatter', 2)]['sectors_per_access'], 32.0, 'scatter: one sector per lane')
eq(sum(m[('scatter', 2)]['strides'].values()), N - N // 32, 'scatter strides counted')
eq('4' in m[('scatter', 2)]['strides'], False, 'scatter is not unit stride')
eq(sum(x['out_of_bounds'] for x in r['memory_access']), 0, 'out of bounds')
eq(len(m), 11, 'rows')
eq(t['launches'], 5, 'launches')
eq(t['records'], 10 * N + $loads, 'records')
eq(t['dropped'], 0, 'dropped')
"
	records=$(python3 -c "import json; print(json.load(open('$work/patterns.json'))['memory_access_totals']['records'])")
	[ "$(babeltrace_accesses patterns)" = "$records" ] || fail "babeltrace2 reads another number of accesses than $records"
	[ "$(babeltrace_count patterns mem_launch_end)" = 5 ] || fail "babeltrace2: mem_launch_end"
	"$ht" check "$work/patterns" >/dev/null || fail "hetrace check rejected the trace"
	"$ht" info "$work/patterns" | grep "memory      $records accesses recorded in 5 launches" >/dev/null || fail "info does not count the accesses"
	;;
hashcat)
	command -v hashcat >/dev/null || { echo "hashcat missing: skipped"; exit 77; }
	# hashcat's first run compiles its kernels (clCompileProgram, then
	# clLinkProgram of each alone), qualifiers and parameters spelled through
	# macros (KERNEL_FQ, KERN_ATTR_*), 24 parameters: a cache of its own
	# here, so that it builds from source; a mask attack on the MD5 of "4711"
	echo -n 4711 | md5sum | cut -d' ' -f1 >"$work/h.txt"
	XDG_CACHE_HOME=$work/cache record hc --memory-access --mode block -- \
		hashcat -m 0 -a 3 "$work/h.txt" '?d?d?d?d' --potfile-disable --quiet -D 1,2 --force \
		--session "hetrace-$$" --restore-disable
	grep -qx "$(cat "$work/h.txt"):4711" "$work/hc.out" || fail "hashcat did not find it: $(cat "$work/hc.out")"
	if grep "runs untraced" "$work/hc.err"; then fail "a kernel ran untraced"; fi
	report_json hc
	check hc "
for key, what in [(('m00000_sxx', 0), 'the candidates (pws)'), (('m00000_sxx', 15), 'the digest (digests_buf)')]:
    eq(key in m and m[key]['reads'] > 0, True, 'MD5 kernel reads ' + what)
eq(m[('gpu_bzero', 0)]['writes'] > 0, True, 'gpu_bzero writes')
eq(('l_markov', 0) in m, True, 'the markov kernel')
eq(sum(x['out_of_bounds'] for x in r['memory_access']), 0, 'out of bounds')
eq(t['dropped'], 0, 'dropped')
"
	;;
glob)
	REC="--memory-access=s* --mode block" same glob "$prog" patterns $N
	report_json glob
	check glob "
eq(sorted(set(k for k, a in m)), ['scatter', 'stride2'], 'kernels matching s*')
eq(m[('stride2', 0)]['reads'], $N, 'stride2 reads')
"
	;;
pick)
	# a helper's pointer reaches buffer a from even work-items, b from odd ones:
	# each buffer's 32-lane accesses hold its 16 lanes, 8 bytes apart (4 sectors,
	# 2 when packed), not the other buffer's
	REC="--memory-access --mode block" same pick "$prog" pick $N
	report_json pick
	check pick "
for a in (0, 1):
    eq(m[('pick', a)]['reads'], $N // 2, 'argument %d reads' % a)
    eq(m[('pick', a)]['accesses_32'], $N // 32, 'argument %d: 32-lane accesses' % a)
    eq(m[('pick', a)]['sectors_per_access'], 4.0, 'argument %d: sectors per 32-lane access' % a)
    eq(m[('pick', a)]['ideal_sectors_per_access'], 2.0, 'argument %d: ideal' % a)
eq(m[('pick', 2)]['writes'], $N, 'argument 2 writes')
eq(sum(x['out_of_bounds'] for x in r['memory_access']), 0, 'out of bounds')
"
	;;
oob)
	REC="--memory-access --mode block" same oob "$prog" oob $N
	report_json oob
	check oob "
N = $N
row = m[('oob', 0)]
eq(row['out_of_bounds'], 1, 'out-of-bounds reads of argument 0')
x = row['out_of_bounds_examples'][0]
eq((x['kind'], x['size'], x['offset']), ('load', 4, 4 * N), 'the read past the end')
eq((x['group'], x['item'], x['global']), (N // 64 - 1, 63, N - 1), 'its work-item')
eq((x['line'], x['col'], x['file']), (37, 11, ''), 'its source line (in the program itself)')
eq(m[('oob', 1)]['out_of_bounds'], 0, 'argument 1')
eq(row['buffer_bytes'], 4 * N, 'buffer size')
"
	"$ht" report "$work/oob" | grep "load of 4 bytes at offset $((4 * N)) by work-item 63 of group 63 (global id $((N - 1))), source line 37" >/dev/null ||
		fail "the text report does not show the out-of-bounds read"
	;;
included)
	# the read past the end is in a helper of an #include'd file: that file's line
	REC="--memory-access --mode block" same included "$prog" included $N
	report_json included
	check included "
N = $N
row = m[('incoob', 0)]
eq((row['reads'], row['out_of_bounds']), (N, 1), 'reads of argument 0 through the helper, one past the end')
x = row['out_of_bounds_examples'][0]
eq((x['kind'], x['offset'], x['global']), ('load', 4 * N, N - 1), 'the read past the end')
eq((x['line'], x['file'].startswith('/tmp/mt-prog-'), x['file'].endswith('/mt_get.h')), (4, True, True), 'its file and line: ' + x['file'])
eq(m[('incoob', 1)]['writes'], N, 'argument 1 writes')
"
	"$ht" report "$work/included" | grep -E "load of 4 bytes at offset $((4 * N)) .*, source line 4 column [0-9]+ of /tmp/mt-prog-.*/mt_get.h" >/dev/null ||
		fail "the text report does not name the file: $("$ht" report "$work/included" | grep -A3 'out of bounds')"
	;;
fallback)
	# the expanded program does not build on PoCL (it defines no __SPIR__, clang's
	# spir64 preprocessor does): instrumented as written, the load in PICK left out
	REC="--memory-access --mode block" same fallback "$prog" fallback $N
	grep -qx "fallback ran over $N work-items: out\[0\] 1.0, out\[$((N - 1))\] $N.0" "$work/fallback.out" ||
		fail "results: $(cat "$work/fallback.out")"
	grep -q "kernel 'fallback' does not build with its macros expanded.*it is instrumented as written" "$work/fallback.err" ||
		fail "the fallback's warning: $(cat "$work/fallback.err")"
	grep -q "1 global-memory accesses of the program of kernel 'fallback' are spelled inside macros" "$work/fallback.err" ||
		fail "the left-out load's warning: $(cat "$work/fallback.err")"
	report_json fallback
	check fallback "eq((m[('fallback', 0)]['writes'], m[('fallback', 0)]['reads']), ($N, 0), 'the store, recorded')
eq(('fallback', 1) in m, False, 'the load in PICK, left out')"
	;;
vectors)
	# vload4/vstore4 with a pointer expression, a plain pointer and an offset loaded
	# from memory: 16 bytes an access, each argument evaluated once
	REC="--memory-access --mode block" same vectors "$prog" vectors $N
	grep -q "vec ran over $N work-items: out\[0..3\] 0.0 2.0 4.0 6.0" "$work/vectors.out" ||
		fail "results: $(cat "$work/vectors.out")"
	report_json vectors
	check vectors "
N = $N
eq((m[('vec', 0)]['reads'], m[('vec', 0)]['bytes_read'], m[('vec', 0)]['writes']), (2 * N, 32 * N, 0), 'argument 0: two vload4 a work-item')
eq((m[('vec', 1)]['writes'], m[('vec', 1)]['bytes_written'], m[('vec', 1)]['reads']), (N, 16 * N, 0), 'argument 1: one vstore4 a work-item')
eq(m[('vec', 1)]['strides'], {'16': N - N // 32}, 'vstore4 strides')
eq((m[('vec', 2)]['reads'], m[('vec', 2)]['bytes_read']), (N, 4 * N), 'argument 2: the offsets, loaded')
eq(sum(x['out_of_bounds'] for x in r['memory_access']), 0, 'out of bounds')
"
	if grep -q "not recorded" "$work/vectors.err"; then fail "accesses left out: $(cat "$work/vectors.err")"; fi
	;;
tiny_block | tiny_discard)
	# ~270k records through a 512 KiB channel (4 bins of ~2000 records): ~130 drains
	n=8192 trip=64
	mode=block
	[ $case_ = tiny_discard ] && mode=discard
	"$prog" loop $n $trip >"$work/plain.out"
	if [ $mode = discard ]; then
		# a consumer that naps 2 ms after each drain cannot keep up: drops must happen
		HETRACE_MEMTRACE_NAP=2000 record tiny --memory-access --memory-access-buffer 512K \
			--mode discard -- "$prog" loop $n $trip
	else
		record tiny --memory-access --memory-access-buffer 512K --mode block -- "$prog" loop $n $trip
	fi
	diff -u "$work/plain.out" "$work/tiny.out" || fail "the program saw something different"
	loads=$(sed -n 's/^loop .*(\([0-9]*\) loads in the loop)$/\1/p' "$work/tiny.out")
	report_json tiny
	check tiny "
want = 2 * $n + $loads
got = sum(x['reads'] + x['writes'] + x['atomics'] for x in r['memory_access'])
eq(got, t['records'], 'rows add up to the records')
eq(got + t['dropped'], want, 'recorded + dropped = every access')
if '$mode' == 'block':
    eq(t['dropped'], 0, 'block mode drops nothing')
    eq(m[('loop', 1)]['reads'], $loads, 'loads in the loop')
else:
    if t['dropped'] == 0:
        sys.exit('FAIL: discard mode with a consumer that cannot keep up dropped nothing')
print('recorded %d, dropped %d of %d' % (got, t['dropped'], want))
"
	if [ $mode = discard ]; then
		"$ht" info "$work/tiny" | grep -E "memory accesses dropped" >/dev/null || fail "info does not show the dropped accesses"
	fi
	;;
sample)
	REC="--memory-access --memory-access-sample 4 --mode block" same sample "$prog" patterns $N
	report_json sample
	check sample "
eq(m[('unit', 0)]['reads'], $N // 4, '1 work-group in 4')
eq(t['records'] % 64, 0, 'whole work-groups')
"
	;;
view)
	# the view's heat maps: the "memory" key of the page's data, and the details of a
	# kernel selected as a click would (#kernel=NAME) in headless Chromium; the exports
	chromium=$(command -v chromium || true)
	[ -n "$chromium" ] || { echo "no chromium: skipped"; exit 77; }
	record view --memory-access --mode block -- "$prog" patterns $N
	"$ht" view "$work/view" -o "$work/v.html" 2>"$work/view.err" || fail "view failed: $(cat "$work/view.err")"
	python3 - "$work/v.html" "$N" <<'EOF' || fail "the view's memory data"
import json, re, sys
d = json.loads(re.search(r'id="ht-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
N, S = int(sys.argv[2]), d["strings"]
m = {(S[x["kernel"]], x["arg"]): x for x in d["memory"]}
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
u0, u1 = m[("unit", 0)], m[("unit", 1)]
eq((u0["reads"], u0["writes"], u0["buffer"]), (N, 0, 8 * N), "unit argument 0")
# x has 2N floats, unit reads the first N: the first half of the 64 buckets, N / 32 each
eq(u0["heat"][0::2], [N // 32] * 32 + [0] * 32, "unit argument 0 loads per bucket")
eq(u0["heat"][1::2], [0] * 64, "unit argument 0 stores per bucket")
eq(u1["heat"][1::2], [N // 64] * 64, "unit argument 1 stores per bucket")
eq(u1["heat"][0::2], [0] * 64, "unit argument 1 loads per bucket")
eq(sum(m[("atomics", 0)]["heat"][0::2]), N, "atomics in the heat map")
eq(len(m), 11, "rows")
EOF
	timeout 50 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --disable-component-update --disable-sync --user-data-dir="$work/chrome" \
		--dump-dom "file://$work/v.html#kernel=stride2" >"$work/dom.html" 2>"$work/dom.log" ||
		fail "chromium failed: $(tail -3 "$work/dom.log")"
	grep -q 'data-ready="1"' "$work/dom.html" || fail "the page's script did not finish"
	details=$(grep -o '<div id="details">.*' "$work/dom.html" | sed 's,</div>,\n,g')
	for want in "argument 0: 4,096 loads, 0 stores, 0 atomics in 1 launch(es) of a 32.00 KiB buffer" \
		"argument 1: 0 loads, 4,096 stores, 0 atomics in 1 launch(es) of a 16.00 KiB buffer"; do
		grep -qF "$want" <<<"$details" || fail "the details of stride2 lack '$want': $details"
	done
	[ "$(grep -o '<div class="heat"' <<<"$details" | wc -l)" = 2 ] || fail "two heat maps expected: $details"
	[ "$(grep -o '<span title="bytes' <<<"$details" | wc -l)" = 128 ] || fail "64 buckets per heat map expected"
	# the exports draw no memory records and must not trip over them
	for fmt in perfetto chrome ctf; do
		"$ht" export "$work/view" --format $fmt -o "$work/x.$fmt" 2>"$work/x.err" ||
			fail "export --format $fmt of a trace with memory records: $(cat "$work/x.err")"
	done
	python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$work/x.chrome" || fail "chrome export: not JSON"
	babeltrace2 "$work/x.ctf" >/dev/null 2>"$work/x.bt.err" && [ ! -s "$work/x.bt.err" ] ||
		fail "babeltrace2 on the ctf export: $(head -3 "$work/x.bt.err")"
	;;
queries)
	# what the program asks about its program and kernels; the program whose load
	# and helper call macros hide is traced with its macros expanded (clang -E); the
	# one made from a binary runs untraced, with a warning
	REC="--memory-access" same queries "$prog" queries
	[ "$(grep -c "runs untraced" "$work/queries.err")" = 1 ] || fail "expected one warning: $(cat "$work/queries.err")"
	if grep -q "spelled inside macros" "$work/queries.err"; then fail "accesses in macros left out: $(cat "$work/queries.err")"; fi
	grep -q "kernel 'unit' runs untraced.*not made from OpenCL C source by clBuildProgram" "$work/queries.err" ||
		fail "the binary's warning: $(cat "$work/queries.err")"
	grep -qx "unit from the binary wrote 0.0 ... 126.0" "$work/queries.out" || fail "the binary's kernel: $(cat "$work/queries.out")"
	grep -qx "viamacro wrote 7 8 9 ... 7" "$work/queries.out" || fail "viamacro: $(cat "$work/queries.out")"
	report_json queries
	check queries "eq((m[('viamacro', 0)]['writes'], m[('viamacro', 0)]['reads']), (64, 0), 'viamacro stores through put()')
eq((m[('viamacro', 1)]['reads'], m[('viamacro', 1)]['writes']), (64, 0), 'viamacro loads in LOAD()')
eq(m[('viamacro', 1)]['strides'], {'4': 62}, 'viamacro load strides (31 a 32-lane access)')
eq(any(k == 'unit' for k, _ in m), False, 'the binary program untraced')"
	;;
cuda_gpu)
	# the Compute Sanitizer part: exact counts of a known kernel (sites are instruction
	# offsets; buffers are the allocations live at launch, in the order made)
	REC="--memory-access --mode block" same cuda "$bin/mt_cuda_prog"
	grep -q "out\[4095\] 8190.0, counts 256 256 256 256" "$work/cuda.out" || fail "results: $(cat "$work/cuda.out")"
	report_json cuda
	check cuda "
unit = [x for x in r['memory_access'] if x['kernel'] == 'unit']
eq(sum(x['reads'] for x in unit), 4096, 'unit loads')
eq(sum(x['writes'] for x in unit), 4096, 'unit stores')
eq(sum(x['atomics'] for x in unit), 0, 'unit atomics')
eq(m[('unit', 0)]['reads'], 4096, 'loads of the first allocation (in)')
eq(m[('unit', 1)]['writes'], 4096, 'stores to the second (out)')
eq(m[('unit', 0)]['strides'], {'4': 4096 - 4096 // 32}, 'unit stride')
eq(m[('unit', 0)]['sectors_per_access'], 4.0, 'coalesced: 4 sectors per warp')
cnt = [x for x in r['memory_access'] if x['kernel'] == 'count']
eq(sum(x['atomics'] for x in cnt), 1024, 'count atomics')
eq(sum(x['out_of_bounds'] for x in r['memory_access']), 0, 'out of bounds')
eq(t['dropped'], 0, 'dropped')
"
	;;
*)
	fail "unknown case $case_"
	;;
esac
echo "ok: $case_"
