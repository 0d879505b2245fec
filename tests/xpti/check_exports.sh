#!/usr/bin/env bash
# xpti_exports: libxptifw.so must export exactly the functions of src/xpti/api_list.h, and
# libxpti.a must define them all without exporting anything else with default visibility.
set -euo pipefail
lib=$1 list=$2 archive=$3
want=$(grep -o 'X(xpti[A-Za-z0-9]*)' "$list" | sed 's/X(\(.*\))/\1/' | sort)
have=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
if [ "$want" != "$have" ]; then
	echo "export list mismatch:"; diff <(echo "$want") <(echo "$have") || true; exit 1
fi
echo "libxptifw.so exports the $(echo "$want" | wc -l) API functions and nothing else"
# Every API function must have a proxy stub (defined, text) in the static library.
stubs=$(nm --defined-only "$archive" | awk '$2 == "T" {print $3}' | grep '^xpti' | sort)
if [ "$want" != "$stubs" ]; then
	echo "proxy stub mismatch:"; diff <(echo "$want") <(echo "$stubs") || true; exit 1
fi
# No non-API symbol of ours escapes the archive with external linkage except ht_ ones.
bad=$(nm --defined-only -g "$archive" | awk 'NF == 3 {print $3}' | grep -v '^xpti' | grep -v '^ht_' || true)
if [ -n "$bad" ]; then echo "unprefixed global symbols in libxpti.a: $bad"; exit 1; fi
echo "libxpti.a defines a stub for each of them"
