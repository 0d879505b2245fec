#!/usr/bin/env python3
"""Checks a trace of a real CUDA program (ht_test_dump output) for cuda_gpu_*.

  check_gpu_trace.py DUMP BT2 "expect kernels=12 scale_kernel=3 ... bytes=B"
      streams_prog: kernel/copy/memset counts, names, byte counts, one queue
      per CUDA stream, every command correlated with its API call, and each
      command inside its host window (launch begin .. end of the next
      synchronisation that covers its stream). BT2 is babeltrace2's text
      output of the same trace, read for string definitions (ht_test_dump
      prints string ids in api_end arguments unresolved).
  check_gpu_trace.py --count-in-range RANGE DUMP
      prints how many kernels were launched inside the NVTX range RANGE.
Exits 1 with a message on the first failed check.
"""
import re
import sys

TOL = 20000  # ns: CUPTI maps GPU times into our clock by interpolation
FIELD = re.compile(r'(\w+)=("([^"]*)"|\S+)')


def parse(path):
    fns, strings, calls, cmds, regions, instants = {}, {}, [], [], [], []
    stacks, open_regions = {}, {}
    for line in open(path, encoding="utf-8", errors="replace"):
        parts = line.split(" ", 4)
        if len(parts) < 4:
            continue
        stream, ts, ev = parts[1], parts[2], parts[3]
        rest = parts[4] if len(parts) > 4 else ""
        f = {m.group(1): (m.group(3) if m.group(3) is not None else m.group(2))
             for m in FIELD.finditer(rest)}
        if ev == "fn_def":
            spec = [a.split(":")[0] for a in f.get("args", "").split(",") if a]
            fns[int(f["fn"])] = (f["name"], spec)
        elif ev == "string_def":
            strings[int(f["id"])] = f.get("value", "")
        elif ev == "api_begin":
            stacks.setdefault(stream, []).append((int(f["fn"]), int(ts)))
        elif ev == "api_end":
            fn = int(f["fn"])
            st = stacks.get(stream, [])
            begin = int(ts)
            for i in range(len(st) - 1, -1, -1):
                if st[i][0] == fn:
                    begin = st[i][1]
                    del st[i:]
                    break
            name, spec = fns.get(fn, ("?", []))
            vals = [int(v) for v in f.get("args", "").split(",") if v]
            calls.append({"name": name, "begin": begin, "end": int(ts), "thread": stream,
                          "ret": int(f["ret"]), "args": dict(zip(spec, vals))})
        elif ev == "device_command":
            cmds.append(f)
        elif ev == "region_begin":
            open_regions.setdefault((stream, f["name"]), []).append(int(ts))
        elif ev == "region_end":
            st = open_regions.get((stream, f["name"]), [])
            if st:
                regions.append((stream, f["name"], st.pop(), int(ts)))
        elif ev == "instant":
            instants.append((f.get("name", ""), rest))
    return fns, strings, calls, cmds, regions, instants


def bt2_strings(path):
    pat = re.compile(r'string_def: .*\{ id = (\d+), value = "((?:[^"\\]|\\.)*)" \}$')
    out = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = pat.search(line)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


def die(msg):
    print("FAIL:", msg)
    sys.exit(1)


def launches(calls):
    return [c for c in calls if "corr" in c["args"] and re.search(r"Launch", c["name"])]


def count_in_range(rng, path):
    _, _, calls, cmds, regions, _ = parse(path)
    windows = [(t, b, e) for t, n, b, e in regions if n == rng]
    if not windows:
        die("no NVTX range %r" % rng)
    corrs = {c["args"]["corr"] for c in launches(calls)
             if any(c["thread"] == t and b <= c["begin"] <= e for t, b, e in windows)}
    print(sum(1 for d in cmds if d["kind"] == "kernel" and int(d["corr"]) in corrs))


def check_streams(path, bt2, expect):
    want = dict(kv.split("=") for kv in expect.split()[1:])
    _, strings, calls, cmds, _, instants = parse(path)
    strings.update(bt2_strings(bt2))
    nbytes = int(want["bytes"])
    kernels = [d for d in cmds if d["kind"] == "kernel"]
    if len(kernels) != int(want["kernels"]):
        die("%d kernels, want %s" % (len(kernels), want["kernels"]))
    for k in ("scale_kernel", "add_kernel", "graph_kernel"):
        n = sum(1 for d in kernels if d["name"] == k)
        if n != int(want[k]):
            die("%d %s, want %s" % (n, k, want[k]))
    for kind, key in (("copy_h2d", "h2d"), ("copy_d2h", "d2h"), ("fill", "memset")):
        sel = [d for d in cmds if d["kind"] == kind]
        if len(sel) != int(want[key]):
            die("%d %s commands, want %s" % (len(sel), kind, want[key]))
        if any(int(d["bytes"]) != nbytes for d in sel):
            die("%s byte counts %s, want %d" % (kind, [d["bytes"] for d in sel], nbytes))
    if any(d["ts_domain"] != "host" for d in cmds):
        die("a command is not in the host clock domain")
    if not any(n == "cuda.tracing" and "CLOCK_MONOTONIC" in r for n, r in instants):
        die("the trace does not record how device timestamps were taken")
    by_corr = {}
    for c in calls:
        if "corr" in c["args"]:
            by_corr.setdefault(c["args"]["corr"], c)
    syncs = [c for c in calls if c["name"] in ("cudaStreamSynchronize", "cudaDeviceSynchronize")]
    queue_of_stream = {}
    graph_corrs = set()
    for d in cmds:
        if d["kind"] == "sync":
            continue
        call = by_corr.get(int(d["corr"]))
        if not call:
            die("%s %s (corr %s) has no API call" % (d["kind"], d["name"], d["corr"]))
        if d["kind"] == "kernel":
            if call["name"] == "cudaGraphLaunch":
                graph_corrs.add(int(d["corr"]))
                if d["name"] != "graph_kernel":
                    die("graph launch ran %s" % d["name"])
            elif strings.get(call["args"].get("kernel")) != d["name"]:
                die("kernel %s linked to a launch of %s" %
                    (d["name"], strings.get(call["args"].get("kernel"))))
        if call["name"] != "cudaGraphLaunch":
            q = queue_of_stream.setdefault(call["args"]["stream"], d["queue"])
            if q != d["queue"]:
                die("stream %x has commands on queues %s and %s" %
                    (call["args"]["stream"], q, d["queue"]))
        start, end = int(d["start"]), int(d["end"])
        if start + TOL < call["begin"]:
            die("%s %s starts %d ns before its launch" % (d["kind"], d["name"],
                                                          call["begin"] - start))
        covering = [s["end"] for s in syncs if s["begin"] >= call["end"] and
                    (s["name"] == "cudaDeviceSynchronize" or
                     s["args"].get("stream") == call["args"].get("stream"))]
        if not covering or end > min(covering) + TOL:
            die("%s %s ends after the synchronisation that waited for it" %
                (d["kind"], d["name"]))
    if len(set(queue_of_stream.values())) != 3:
        die("3 streams should give 3 queues, got %s" % queue_of_stream)
    if len(graph_corrs) != 2:
        die("2 graph launches should give 2 correlation ids, got %s" % graph_corrs)
    print("ok: %d commands checked" % len(cmds))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--count-in-range":
        count_in_range(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4:
        check_streams(sys.argv[1], sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
