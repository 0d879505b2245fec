#!/usr/bin/env bash
# OpenCL interposition cost (seed 000's Base / Preload / Trace methodology)
# on PoCL's `basic` and `pthread` devices: clGetPlatformIDs, clGetDeviceInfo,
# blocking clEnqueueReadBuffer of 4 B / 4 KiB / 1 MiB, kernel + clFinish.
# Configurations are interleaved; each cell is the median over REPS runs
# with the min-max range. A fourth configuration, trace-cb, collects device
# timestamps from completion callbacks instead of deferred queries
# (HETRACE_CL_COLLECT=callback), to compare the two ways. A fifth, prof, is
# the anchor for what tracing asks of the runtime: untraced, the program
# itself uses a profiling queue, an event per command and reads its four
# timestamps; trace - prof is hetrace's own share of an enqueue. A sixth,
# inproc, measures that share inside one traced process (cl_bench inproc:
# recorded and unrecorded blocks of ~1 ms alternate, so slow phases of the
# machine hit both sides alike). A seventh, stacks, measures the calling
# contexts the same way (cl_bench stacks: kernel + clFinish 10 frames below
# main, the recorder's stack hook set and cleared in alternate blocks):
# callstack_kernel_ns is what --callstacks=launch (the default) adds per
# launch and its wait. The trace configurations run with --callstacks=none
# --no-sample, so their figures compare with those of before call stacks
# and CPU sampling. Not pass/fail.
#
#   bench/opencl.sh BUILD_DIR        (REPS=7 SCALE=1 by default; basic device: 10 x SCALE)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
reps=${REPS:-7}
scale=${SCALE:-1}
bench=$build/bin/cl_bench
lib=$build/lib
if [ ! -x "$bench" ] || [ ! -f "$lib/libhetrace-opencl.so" ]; then
	echo "opencl-bench: $bench or $lib/libhetrace-opencl.so not built (needs OpenCL headers)" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ht-opencl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

plain="--callstacks=none --no-sample" # what `record` did before call stacks and samples

run() { # run CONFIG DEVICE REP
	local out=$work/$1.$2.$3 scale=$scale
	# the basic device runs a command in well under a microsecond: 10x the
	# iterations keep each loop ~10 ms long, so one preemption cannot move it
	[ "$2" = basic ] && scale=$(awk -v s="$scale" 'BEGIN { print s * 10 }')
	case $1 in
	base) POCL_DEVICES=$2 "$bench" "$scale" >"$out" ;;
	prof) POCL_DEVICES=$2 "$bench" "$scale" profiled >"$out" ;;
	preload) POCL_DEVICES=$2 LD_PRELOAD="$lib/libhetrace.so.0:$lib/libhetrace-opencl.so" \
		"$bench" "$scale" >"$out" ;;
	trace) POCL_DEVICES=$2 "$build/bin/hetrace" record -q $plain -o "$work/tdir.$2.$3" -- \
		"$bench" "$scale" >"$out"
		rm -rf "$work/tdir.$2.$3" ;;
	trace-cb) POCL_DEVICES=$2 HETRACE_CL_COLLECT=callback "$build/bin/hetrace" record -q $plain \
		-o "$work/tdir.$2.$3" -- "$bench" "$scale" >"$out"
		rm -rf "$work/tdir.$2.$3" ;;
	esac
}

for dev in basic pthread; do
	POCL_DEVICES=$dev "$bench" 0.05 >/dev/null # warm PoCL's kernel cache
	for r in $(seq 1 "$reps"); do
		for c in base preload trace trace-cb prof; do
			run $c $dev "$r"
		done
	done
done

for r in $(seq 1 "$reps"); do
	POCL_DEVICES=basic "$build/bin/hetrace" record -q $plain -o "$work/tdir.inproc.$r" -- \
		"$bench" "$scale" inproc >"$work/inproc.basic.$r"
	POCL_DEVICES=basic "$build/bin/hetrace" record -q --no-sample -o "$work/tdir.stacks.$r" -- \
		"$bench" "$scale" stacks >"$work/stacks.basic.$r"
	rm -rf "$work/tdir.inproc.$r" "$work/tdir.stacks.$r"
done

/usr/bin/env python3 - "$work" "$reps" <<'EOF'
import statistics, sys, glob, os
work, reps = sys.argv[1], int(sys.argv[2])
tests = ["clGetPlatformIDs", "clGetDeviceInfo", "read_4B", "read_4KiB", "read_1MiB",
         "kernel_finish"]
med = {}
for dev in ("basic", "pthread"):
    print("\nPoCL device %s: ns per call, median [min-max] of %d runs" % (dev, reps))
    print("%-18s %26s %26s %26s %26s %26s %10s %10s %10s %10s" % (
        "test", "base", "preload", "trace", "trace-cb", "prof", "preload-b", "trace-b", "cb-b",
        "trace-prof"))
    for t in tests:
        row = {}
        for c in ("base", "preload", "trace", "trace-cb", "prof"):
            vals = []
            for f in glob.glob(os.path.join(work, "%s.%s.*" % (c, dev))):
                for line in open(f):
                    k, v = line.split()
                    if k == t:
                        vals.append(float(v))
            row[c] = vals
            med[(dev, t, c)] = statistics.median(vals)
        cell = lambda v: "%9.1f [%7.1f-%7.1f]" % (statistics.median(v), min(v), max(v))
        print("%-18s %26s %26s %26s %26s %26s %10.1f %10.1f %10.1f %10.1f" % (
            t, cell(row["base"]), cell(row["preload"]), cell(row["trace"]),
            cell(row["trace-cb"]), cell(row["prof"]),
            med[(dev, t, "preload")] - med[(dev, t, "base")],
            med[(dev, t, "trace")] - med[(dev, t, "base")],
            med[(dev, t, "trace-cb")] - med[(dev, t, "base")],
            med[(dev, t, "trace")] - med[(dev, t, "prof")]))
d = lambda t, c, dev="basic": med[(dev, t, c)] - med[(dev, t, "base")]
sync_pre = statistics.mean([d(t, "preload", dev) for dev in ("basic", "pthread")
                            for t in ("clGetPlatformIDs", "clGetDeviceInfo")])
sync_tr = statistics.mean([d(t, "trace", dev) for dev in ("basic", "pthread")
                           for t in ("clGetPlatformIDs", "clGetDeviceInfo")])
print("\ncollection (ns over base): deferred vs completion callbacks")
for dev in ("basic", "pthread"):
    for t in ("read_4KiB", "kernel_finish"):
        print("  %-8s %-14s deferred %8.1f   callback %8.1f" % (
            dev, t, d(t, "trace", dev), d(t, "trace-cb", dev)))
print("opencl-bench-collect: deferred_read4k_ns=%.1f callback_read4k_ns=%.1f "
      "deferred_kernel_ns=%.1f callback_kernel_ns=%.1f (basic device)" % (
          d("read_4KiB", "trace"), d("read_4KiB", "trace-cb"),
          d("kernel_finish", "trace"), d("kernel_finish", "trace-cb")))
print("opencl-bench-share: runtime profiling (prof - base) read4k_ns=%.1f kernel_ns=%.1f; "
      "hetrace (trace - prof) read4k_ns=%.1f kernel_ns=%.1f (basic device)" % (
          d("read_4KiB", "prof"), d("kernel_finish", "prof"),
          med[("basic", "read_4KiB", "trace")] - med[("basic", "read_4KiB", "prof")],
          med[("basic", "kernel_finish", "trace")] - med[("basic", "kernel_finish", "prof")]))
inp = {}
for f in glob.glob(os.path.join(work, "inproc.basic.*")):
    for line in open(f):
        k, v = line.split()
        inp.setdefault(k, []).append(float(v))
print("opencl-bench-inproc: hetrace's own share in one process (median of %d runs of the "
      "median over block pairs) kernel_ns=%.1f [%.1f-%.1f] read4k_ns=%.1f [%.1f-%.1f] "
      "(basic device)" % (len(inp["inproc_kernel_share"]),
                          statistics.median(inp["inproc_kernel_share"]),
                          min(inp["inproc_kernel_share"]), max(inp["inproc_kernel_share"]),
                          statistics.median(inp["inproc_read4k_share"]),
                          min(inp["inproc_read4k_share"]), max(inp["inproc_read4k_share"])))
stk = []
for f in glob.glob(os.path.join(work, "stacks.basic.*")):
    for line in open(f):
        k, v = line.split()
        if k == "callstack_kernel_share":
            stk.append(float(v))
print("opencl-bench-stacks: --callstacks=launch per kernel + clFinish 10 frames below main "
      "(median of %d runs of the median over block pairs) %.1f [%.1f-%.1f] ns (basic device)" % (
          len(stk), statistics.median(stk), min(stk), max(stk)))
print("\nopencl-bench: preload_ns=%.1f trace_sync_ns=%.1f trace_read4k_ns=%.1f "
      "trace_kernel_ns=%.1f callstack_kernel_ns=%.1f" % (
          sync_pre, sync_tr, d("read_4KiB", "trace"), d("kernel_finish", "trace"),
          statistics.median(stk)))
EOF
