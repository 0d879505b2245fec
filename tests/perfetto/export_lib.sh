# Helpers for the export tests (sourced after ../integration/lib.sh):
# exporting, and checking a Perfetto file three ways.
DEC=$BUILD/bin/pf_decode
HOSTILE_PROG=$BUILD/bin/pf_hostile_prog
# The text hostile_prog.c uses, as Python decodes its JSON (0xff -> U+FFFD).
HOSTILE_PY='"<img src=x onerror=alert(1)> \"q\" \\ \nline2\t\ufffd end"'

# export_ok TRACE FORMAT OUT
export_ok() {
	"$HT" export "$1" --format "$2" -o "$3" 2>export.err ||
		fail "export --format $2 of $1 failed: $(cat export.err)"
	[ -s "$3" ] || fail "export --format $2 wrote nothing"
}

# pf_check FILE DECODED: protoc parses it (raw, and by name with our proto
# subset, where no field may stay a bare number); pf_decode finds no error.
pf_check() {
	command -v protoc >/dev/null || fail "protoc not installed (Debian: protobuf-compiler)"
	protoc --decode_raw <"$1" >raw.txt 2>raw.err || fail "protoc --decode_raw rejected $1: $(head -3 raw.err)"
	[ -s raw.txt ] || fail "protoc --decode_raw printed nothing"
	protoc --proto_path="$SRC" --decode=perfetto.protos.Trace perfetto_subset.proto \
		<"$1" >named.txt 2>named.err || fail "protoc --decode rejected $1: $(head -3 named.err)"
	! grep -nE '^ *[0-9]+( \{|:)' named.txt >unknown.txt ||
		fail "fields outside the Perfetto subset: $(head -3 unknown.txt)"
	"$DEC" "$1" >"$2" || fail "pf_decode: $(grep -m3 '^error' "$2")"
}

# no_output_on_error FORMAT: exporting a directory that is no trace fails, leaves nothing
no_output_on_error() {
	mkdir notatrace
	echo "hello" >notatrace/file.txt
	"$HT" export notatrace --format "$1" -o out.x 2>err.txt && fail "export of a non-trace succeeded"
	rc=0
	"$HT" export notatrace --format "$1" -o out.x 2>/dev/null || rc=$?
	assert_eq "$rc" 1 "exit status for a non-trace"
	grep -q "cannot open trace" err.txt || fail "no clear message: $(cat err.txt)"
	[ ! -e out.x ] || fail "left an output file after an error"
	[ -z "$(ls -A . | grep -v -e '^notatrace$' -e '^err.txt$')" ] ||
		fail "left files behind: $(ls -A .)"
	# a trace cut short: a stream truncated mid-packet and a metadata-less process
	"$BUILD/bin/synth_trace" cut || fail "synth_trace failed"
	truncate -s 100 cut/100-synth/thread-101
	"$HT" export cut --format "$1" -o cut.out 2>cut.err
	rc=$?
	[ "$rc" -le 1 ] || fail "truncated trace: exit status $rc ($(cat cut.err))"
	[ "$rc" = 0 ] || [ ! -e cut.out ] || fail "truncated trace: error but output left"
	# a trace without device commands: valid, no queue tracks
	"$BUILD/bin/synth_trace" nodev || fail "synth_trace failed"
	rm nodev/100-synth/device-0
	"$HT" export nodev --format "$1" -o nodev.out 2>nodev.err ||
		fail "export without device streams failed: $(cat nodev.err)"
}

# record_vecadd DIR: records the bundled OpenCL example, or skips the test
# (exit 77) where it or the OpenCL source was not built.
record_vecadd() {
	[ -x "$BUILD/bin/vecadd" ] && [ -e "$BUILD/lib/libhetrace-opencl.so" ] || {
		echo "SKIP: vecadd or libhetrace-opencl.so not built"
		exit 77
	}
	"$HT" record -o "$1" -- "$BUILD/bin/vecadd" 65536 >rec.out 2>&1 || {
		grep -q "ok" rec.out || { echo "SKIP: no usable OpenCL device: $(tail -2 rec.out)"; exit 77; }
		fail "record of vecadd failed: $(cat rec.out)"
	}
}
