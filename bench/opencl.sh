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
# and CPU sampling. An eighth, session, is the Preload case of a
# `hetrace session` (seed 000's system-wide deployment): the variables that
# `hetrace session env` prints and no session running, so the wrappers
# test the flag the control page would switch; session_idle_ns is its cost
# over base per synchronous call, beside preload_ns. Not pass/fail.
#
# The memtrace line: memory-access tracing of a memory-bound kernel (mt_bench:
# saxpy, two loads and a store per work-item, MT_N floats), untraced and under
# `record --memory-access --mode block` (every access recorded, none
# dropped), runs interleaved; memtrace_kernel_x is the ratio of the median
# launch + clFinish times, memtrace_cpu_x that of the process's CPU time
# over the launch (the consumer thread's included: on a loaded machine the
# long traced launches wait for a CPU more often than the short untraced
# ones, which inflates the wall-clock ratio, not this one), records_per_s
# the accesses a traced launch moved through the channel into the trace per
# second and cpu_ns_per_access the CPU time tracing adds per access. Every
# traced run is checked to have recorded all its accesses (`info`'s count;
# tests/memtrace checks that the trace's runs expand to that count). A third configuration, instr, records one
# work-group in 100000 (--memory-access-sample): the instrumented kernel's own
# cost with next to nothing through the channel; memtrace_instr_x is its ratio.
#
# The pcsampling line: device PC sampling's cost on a compute-bound kernel
# (tests/pcsamp's pcs_prog: two kernels, 4096 work-items of a 40000-trip
# dependent multiply-add loop, ~0.7 s on the basic device), untraced and
# under `record --pc-sampling` at its default period (1 ms), runs
# interleaved; pcsampling_kernel_pct is the slowdown of the median time
# from the first enqueue to clFinish, in per cent of the untraced median.
# The traced run's PoCL cache is the trace's (compiled afresh each run, -g
# added): the compile happens at clBuildProgram, outside the timed span.
#
#   bench/opencl.sh BUILD_DIR        (REPS=7 SCALE=1 MT_N=262144 by default;
#                                     basic device: 10 x SCALE; ONLY=memtrace
#                                     or ONLY=pcsampling: that line alone)
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
memtrace() { # the memtrace line (see above)
	local mt=$build/bin/mt_bench n=${MT_N:-262144} iter=5 r want got
	if [ ! -x "$mt" ] || [ ! -x "$build/bin/hetrace-cl-rewrite" ]; then
		echo "opencl-bench-memtrace: not run ($mt or the OpenCL C rewriter not built)"
		return 0
	fi
	POCL_DEVICES=basic "$mt" "$n" 1 >/dev/null # warm PoCL's kernel cache
	for r in $(seq 1 "$reps"); do
		POCL_DEVICES=basic "$mt" "$n" "$iter" >"$work/mt.base.$r"
		POCL_DEVICES=basic "$build/bin/hetrace" record -q $plain -o "$work/tdir.mt.$r" --memory-access \
			--memory-access-sample 100000 --mode block -- "$mt" "$n" "$iter" >"$work/mt.instr.$r"
		rm -rf "$work/tdir.mt.$r"
		POCL_DEVICES=basic "$build/bin/hetrace" record -q $plain -o "$work/tdir.mt.$r" --memory-access \
			--mode block -- "$mt" "$n" "$iter" >"$work/mt.trace.$r"
		want=$((3 * n * (iter + 1)))
		got=$("$build/bin/hetrace" info "$work/tdir.mt.$r" | sed -n 's/.*memory  *\([0-9]*\) accesses recorded.*/\1/p' | head -1)
		rm -rf "$work/tdir.mt.$r"
		if [ "$got" != "$want" ]; then
			echo "opencl-bench-memtrace: run $r recorded ${got:-no} accesses of $want" >&2
			return 1
		fi
	done
	/usr/bin/env python3 - "$work" "$reps" "$n" <<'EOF'
import glob, os, statistics, sys
work, reps, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
v = {}
for c in ("base", "instr", "trace"):
    for f in glob.glob(os.path.join(work, "mt.%s.*" % c)):
        for line in open(f):
            k, x = line.split()
            v.setdefault((c, k), []).append(float(x))
b, t = v[("base", "memtrace_kernel_ns")], v[("trace", "memtrace_kernel_ns")]
i = v[("instr", "memtrace_kernel_ns")]
acc = v[("base", "accesses_per_launch")][0]
mb, mt, mi = statistics.median(b), statistics.median(t), statistics.median(i)
cb, ct = (statistics.median(v[(c, "memtrace_kernel_cpu_ns")]) for c in ("base", "trace"))
print("memtrace: saxpy over %d floats, %d accesses a launch; ns per launch + clFinish, "
      "median [min-max] of %d runs" % (n, acc, reps))
print("  untraced %12.0f [%.0f-%.0f]" % (mb, min(b), max(b)))
print("  instr    %12.0f [%.0f-%.0f]" % (mi, min(i), max(i)))
print("  traced   %12.0f [%.0f-%.0f]" % (mt, min(t), max(t)))
print("  CPU time: untraced %.0f, traced %.0f" % (cb, ct))
print("opencl-bench-memtrace: memtrace_kernel_x=%.1f memtrace_cpu_x=%.1f records_per_s=%.3g "
      "ns_per_access=%.1f cpu_ns_per_access=%.1f memtrace_instr_x=%.1f base_kernel_ns=%.0f "
      "traced_kernel_ns=%.0f (basic device, %d floats, block mode)" % (
          mt / mb, ct / cb, acc / mt * 1e9, (mt - mb) / acc, (ct - cb) / acc, mi / mb, mb, mt,
          n))
EOF
}
pcsampling() { # the pcsampling line (see above)
	local p=$build/bin/pcs_prog r
	if [ ! -x "$p" ]; then
		echo "opencl-bench-pcsampling: not run ($p not built)"
		return 0
	fi
	POCL_DEVICES=basic "$p" 1000 >/dev/null # warm PoCL's kernel cache
	for r in $(seq 1 "$reps"); do
		POCL_DEVICES=basic "$p" 40000 time >"$work/pcs.base.$r"
		POCL_DEVICES=basic "$build/bin/hetrace" record -q --pc-sampling -o "$work/tdir.pcs.$r" \
			-- "$p" 40000 time >"$work/pcs.trace.$r"
		rm -rf "$work/tdir.pcs.$r"
	done
	/usr/bin/env python3 - "$work" "$reps" <<'EOF'
import glob, os, statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
v = {}
for c in ("base", "trace"):
    for f in glob.glob(os.path.join(work, "pcs.%s.*" % c)):
        for line in open(f):
            if line.startswith("pcsampling_kernel_ns "):
                v.setdefault(c, []).append(float(line.split()[1]))
b, t = v["base"], v["trace"]
mb, mt = statistics.median(b), statistics.median(t)
print("pcsampling: two compute-bound kernels, ns from enqueue to clFinish, median [min-max] "
      "of %d runs" % reps)
print("  untraced             %12.0f [%.0f-%.0f]" % (mb, min(b), max(b)))
print("  record --pc-sampling %12.0f [%.0f-%.0f]" % (mt, min(t), max(t)))
pct = (mt / mb - 1) * 100
print("opencl-bench-pcsampling: pcsampling_kernel_pct=%.1f base_kernel_ns=%.0f "
      "traced_kernel_ns=%.0f (basic device, default period 1ms)" % (pct, mb, mt))
open(os.path.join(work, "pcs.pct"), "w").write("%.1f\n" % pct)
EOF
}
if [ "${ONLY:-}" = memtrace ]; then
	memtrace
	exit
fi
if [ "${ONLY:-}" = pcsampling ]; then
	pcsampling
	exit
fi

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
	session) POCL_DEVICES=$2 LD_PRELOAD="$lib/libhetrace.so.0:$lib/libhetrace-opencl.so" \
		HETRACE_SESSION=bench HETRACE_SESSION_DIR="$work/ctl" "$bench" "$scale" >"$out" ;;
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
		for c in base preload session trace trace-cb prof; do
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

pcsampling >"$work/pcs.out"

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
        for c in ("base", "preload", "session", "trace", "trace-cb", "prof"):
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
sync_idle = statistics.mean([d(t, "session", dev) for dev in ("basic", "pthread")
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
print("opencl-bench-session: preloaded with the session variables, no session running "
      "(ns over base per synchronous call): " + " ".join(
          "%s/%s=%.1f" % (dev, t, d(t, "session", dev)) for dev in ("basic", "pthread")
          for t in ("clGetPlatformIDs", "clGetDeviceInfo")))
print()
sys.stdout.write(open(os.path.join(work, "pcs.out")).read())
pcs = os.path.join(work, "pcs.pct")
print("\nopencl-bench: preload_ns=%.1f session_idle_ns=%.1f trace_sync_ns=%.1f "
      "trace_read4k_ns=%.1f trace_kernel_ns=%.1f callstack_kernel_ns=%.1f pcsampling_kernel_pct=%s" % (
          sync_pre, sync_idle, sync_tr, d("read_4KiB", "trace"), d("kernel_finish", "trace"),
          statistics.median(stk), open(pcs).read().strip() if os.path.exists(pcs) else "nan"))
EOF
memtrace
