# Fuzzes everything that reads a trace (fuzz_trace.c, ASan + UBSan build):
# first the regression cases kept under cases/ (inputs that once crashed a
# reader or an exporter), then mutations of real and synthetic seed traces
# for FUZZ_ITERATIONS runs or FUZZ_SECONDS seconds, whichever ends first.
. "$(dirname "$0")/../integration/lib.sh"
SRC=$2
mkdir seeds
"$HT" record -q --buffer 16K -o seeds/api -- "$PROG" api 30 || fail "seed recording failed"
"$HT" record -q --buffer 16K -o seeds/threads -- "$PROG" threads 2 3000 || fail "seed recording failed"
"$HT" record -q -o seeds/single -- "$PROG" single 200 || fail "seed recording failed"
"$BUILD/bin/synth_trace" seeds/synth || fail "synth_trace failed"
"$BUILD/bin/os_synth" seeds/os || fail "os_synth failed"
"$BUILD/bin/every_class" seeds/every || fail "every_class failed"
if [ -x "$BUILD/bin/cl_loop" ]; then # a real OpenCL trace on PoCL, when it runs here
	POCL_DEVICES=basic "$HT" record -q --buffer 16K -o seeds/opencl -- "$BUILD/bin/cl_loop" 3 \
		>cl.out 2>&1 || rm -rf seeds/opencl
fi
if [ -x "$BUILD/bin/mt_prog" ] && [ -x "$BUILD/bin/hetrace-cl-rewrite" ]; then # memory accesses
	POCL_DEVICES=basic "$HT" record -q --buffer 16K --memory-access --mode block -o seeds/memtrace \
		-- "$BUILD/bin/mt_prog" patterns 64 >mt.out 2>&1 || rm -rf seeds/memtrace
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cases=$(ls "$SRC"/tests/fuzz/cases/*.case 2>/dev/null || true)
if [ -n "$cases" ]; then
	# shellcheck disable=SC2086
	"$BUILD/bin/fuzz_trace" run $cases || fail "a regression case fails again"
fi
if ! "$BUILD/bin/fuzz_trace" mutate seeds "${FUZZ_ITERATIONS:-4000}" "${FUZZ_SECONDS:-150}"; then
	cp last.case "$BUILD/fuzz-crash.case" 2>/dev/null
	fail "fuzzer found a problem; the input is in $BUILD/fuzz-crash.case (keep it under tests/fuzz/cases/)"
fi
echo "ok"
