# libhetrace.so and libhetrace-preload.so export exactly the symbols their
# version scripts list (libhetrace's under HETRACE_0; the preload library's
# unversioned, so they interpose glibc's versioned ones), and a program
# linked with -lhetrace gets the exec family from glibc, not from us.
#   core_exports.sh BUILD_DIR SOURCE_DIR
SRC=$(cd "$2" && pwd)
. "$(dirname "$0")/lib.sh"

# globals MAP: the names a version script exports
globals() {
	sed 's|/\*.*\*/||g; /\/\*/,/\*\//d' "$1" |
		awk '/global:/ { on = 1; next } /local:/ { on = 0 } on' | tr -d ' \t;' | grep -v '^$' | sort
}
# exports LIB: name@version of every symbol LIB defines, version nodes left out
exports() {
	nm -D --defined-only "$1" | awk '$2 != "A" { print $3 }' | sed 's/@@*/@/' | sort
}

want=$(globals "$SRC/src/core/libhetrace.map" | sed 's/$/@HETRACE_0/')
have=$(exports "$BUILD/lib/libhetrace.so.0")
[ "$want" = "$have" ] || fail "libhetrace.so exports differ from libhetrace.map: $(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | tr '\n' ' ')"
echo "libhetrace.so: $(echo "$have" | wc -l) symbols, as libhetrace.map says"

want=$(globals "$SRC/src/preload/libhetrace-preload.map")
have=$(exports "$BUILD/lib/libhetrace-preload.so")
[ "$want" = "$have" ] || fail "libhetrace-preload.so exports differ from its map: $(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | tr '\n' ' ')"
assert_eq "$(echo "$have" | grep -c '^exec')" 8 "exec functions interposed by the preload library"
echo "libhetrace-preload.so: $(echo "$have" | wc -l) symbols, unversioned, as its map says"

# An annotated program linked with -lhetrace: its exec calls bind to glibc.
refs=$(nm -D --undefined-only "$PROG" | awk '$2 ~ /^exec/ { print $2 }')
[ -n "$refs" ] || fail "annot_prog references no exec function (test program changed?)"
echo "$refs" | grep -v '@GLIBC_' && fail "annot_prog's exec calls bind to hetrace: $refs"
echo "ok"
