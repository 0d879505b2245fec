# Fuzzes the reader (ASan + UBSan build) with mutations of real recorded streams.
. "$(dirname "$0")/../integration/lib.sh"
"$HT" record -q --buffer 16K -o s1 -- "$PROG" api 30 || fail "seed recording failed"
"$HT" record -q --buffer 16K -o s2 -- "$PROG" threads 2 3000 || fail "seed recording failed"
"$HT" record -q -o s3 -- "$PROG" single 200 || fail "seed recording failed"
seeds=$(ls s1/*/thread-* s1/*/process s2/*/thread-* s3/*/process | head -8)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$BUILD/bin/fuzz_reader" "${FUZZ_ITERATIONS:-20000}" $seeds || fail "fuzzer found a problem"
echo "ok"
