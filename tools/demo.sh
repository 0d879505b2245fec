#!/usr/bin/env bash
# `make demo`: records the bundled OpenCL example on PoCL (CPU device) — or,
# if the OpenCL source is not built, the annotated pipeline example — and
# prints what the trace holds.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
out=$build/demo-trace
if [ -x "$build/bin/vecadd" ] && [ -f "$build/lib/libhetrace-opencl.so" ]; then
	cmd=("$build/bin/vecadd")
else
	cmd=("$build/bin/pipeline" 500)
fi
echo "== hetrace record -o $out -- ${cmd[*]}"
"$build/bin/hetrace" record --force -o "$out" -- "${cmd[@]}"
echo
echo "== hetrace info $out"
"$build/bin/hetrace" info "$out"
if "$build/bin/hetrace" report --help >/dev/null 2>&1; then
	echo
	echo "== hetrace report $out"
	"$build/bin/hetrace" report "$out"
fi
