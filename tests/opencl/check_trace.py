#!/usr/bin/python3
"""Checks an OpenCL trace recorded by hetrace, through babeltrace2's Python
bindings (so every check also proves babeltrace2 reads the trace).

Always checked:
  - `babeltrace2 DIR` exits 0 and prints nothing on stderr;
  - api_begin/api_end pair up per thread (same function, properly nested);
  - every device_command has a correlation id that exactly one api_end
    carries in its `corr` argument, and every api_end with corr != 0 has
    exactly one device_command;
  - every completed command (status 0) has 0 < QUEUED <= SUBMIT <= START <= END;
  - a command's bytes equal its enqueue's `bytes` argument, and for
    clEnqueue{Read,Write,Fill,Copy}Buffer and Map/SVM calls its `size` argument;
  - every completed command carries its clock-sync bounds: host_before (a
    host time read before its enqueue) <= QUEUED, and END <= the command
    event's own time; one device->host offset satisfies all of them.

Expectations (each may repeat):
  --count FN=N        exactly N calls of FN
  --min-count FN=N    at least N calls of FN
  --commands N        exactly N device commands
  --kind KIND=N       exactly N device commands of that kind (kernel, copy_h2d...)
  --failed N          exactly N device commands with a negative status
  --sequence A,B,...  the calls of the first thread, in order, are exactly these
  --kernel NAME=N     exactly N kernel commands named NAME
  --threads N         api calls on exactly N threads
  --untraced FN       no call of FN in the trace
  --discarded N       exactly N enqueues whose command is missing, and babeltrace2
                      reports discarded events (it does not say how many); without
                      it, every enqueue has its command and nothing is discarded
Prints a summary; exits 1 with a message on the first failed check.
"""

import argparse
import collections
import subprocess
import sys

import bt2

SIZE_IS_BYTES = {"clEnqueueReadBuffer", "clEnqueueWriteBuffer", "clEnqueueCopyBuffer",
                 "clEnqueueFillBuffer", "clEnqueueMapBuffer", "clEnqueueSVMMemcpy",
                 "clEnqueueSVMMemFill", "clEnqueueSVMMap"}


def fail(msg):
    print("check_trace: FAIL: " + msg)
    sys.exit(1)


def pairs(spec_list):
    out = {}
    for s in spec_list or []:
        k, _, v = s.rpartition("=")
        out[k] = int(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--count", action="append")
    ap.add_argument("--min-count", action="append")
    ap.add_argument("--commands", type=int)
    ap.add_argument("--kind", action="append")
    ap.add_argument("--failed", type=int)
    ap.add_argument("--sequence")
    ap.add_argument("--kernel", action="append")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--untraced", action="append")
    ap.add_argument("--discarded", type=int, default=0)
    a = ap.parse_args()

    r = subprocess.run(["babeltrace2", a.trace], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    warnings = [l for l in r.stderr.splitlines() if l.strip()]
    if a.discarded:  # babeltrace2 says so, and says nothing else
        warnings = [l for l in warnings if "may have discarded events" not in l]
    if r.returncode != 0 or warnings:
        fail("babeltrace2 rc=%d stderr=%r" % (r.returncode, r.stderr[:500]))

    strings = {}
    calls = collections.Counter()
    per_thread = collections.OrderedDict()
    stacks = collections.defaultdict(list)
    ends_by_corr = collections.defaultdict(list)
    commands = []
    discarded = 0
    for m in bt2.TraceCollectionMessageIterator(a.trace):
        if type(m) is bt2._DiscardedEventsMessageConst:
            discarded += 1
        if type(m) is not bt2._EventMessageConst:
            continue
        e = m.event
        p = e.payload_field
        ctx = e.packet.context_field
        if e.name == "hetrace:string_def":
            strings[int(p["id"])] = str(p["value"])
        elif e.name == "hetrace:api_begin":
            tid = int(ctx["vtid"])
            stacks[tid].append(p["fn"].labels[0])
        elif e.name == "hetrace:api_end":
            tid = int(ctx["vtid"])
            fn = p["fn"].labels[0]
            if not stacks[tid] or stacks[tid][-1] != fn:
                fail("thread %d: api_end %s without its api_begin (open: %s)"
                     % (tid, fn, stacks[tid][-3:]))
            stacks[tid].pop()
            args = dict(p["args"].selected_option) if int(p["nargs"]) else {}
            args = {k: int(v) for k, v in args.items()}
            calls[fn] += 1
            per_thread.setdefault(tid, []).append(fn)
            if args.get("corr"):
                ends_by_corr[args["corr"]].append((fn, int(p["ret"]), args))
        elif e.name == "hetrace:device_command":
            c = {k: p[k] for k in p.keys()}
            c = {k: (list(map(int, v)) if k in ("global", "local") else
                     (v.labels[0] if k in ("kind", "ts_domain") else int(v)))
                 for k, v in c.items()}
            # the clock's value is CLOCK_MONOTONIC ns (its offset is the epoch)
            c["at"] = m.default_clock_snapshot.value
            commands.append(c)
    for tid, st in stacks.items():
        if st:
            fail("thread %d: api_begin without api_end: %s" % (tid, st))

    # correlation
    seen = collections.Counter(c["corr"] for c in commands)
    for c in commands:
        if c["corr"] == 0:
            fail("device command without correlation id: %r" % c)
        if len(ends_by_corr.get(c["corr"], [])) != 1:
            fail("corr %d: %d enqueue calls" % (c["corr"], len(ends_by_corr.get(c["corr"], []))))
        if seen[c["corr"]] != 1:
            fail("corr %d: %d device commands" % (c["corr"], seen[c["corr"]]))
    missing = 0
    for corr, ends in ends_by_corr.items():
        if len(ends) != 1:
            fail("corr %d carried by %d calls" % (corr, len(ends)))
        if seen[corr] == 0 and missing < a.discarded:
            missing += 1  # counted among the discarded events
        elif seen[corr] != 1:
            fail("%s (corr %d) has %d device commands" % (ends[0][0], corr, seen[corr]))
        if ends[0][1] != 0:
            fail("%s failed (%d) but has corr %d" % (ends[0][0], ends[0][1], corr))
    if (discarded > 0) != (a.discarded > 0) or missing != a.discarded:
        fail("%d discarded-events messages, %d enqueues without their command, expected %d"
             % (discarded, missing, a.discarded))

    # timestamps and bytes
    completed = failed = 0
    for c in commands:
        fn, _, args = ends_by_corr[c["corr"]][0]
        if c["status"] == 0:
            completed += 1
            if not (0 < c["queued"] <= c["submit"] <= c["start"] <= c["end"]):
                fail("%s corr %d: timestamps out of order: %d %d %d %d" % (
                    fn, c["corr"], c["queued"], c["submit"], c["start"], c["end"]))
        elif c["status"] < 0:
            failed += 1
        if "bytes" in args and c["bytes"] != args["bytes"]:
            fail("%s corr %d: command bytes %d, call bytes %d" % (fn, c["corr"], c["bytes"],
                                                                  args["bytes"]))
        if fn in SIZE_IS_BYTES and c["bytes"] != args.get("size"):
            fail("%s corr %d: bytes %d != size %s" % (fn, c["corr"], c["bytes"],
                                                      args.get("size")))

    # clock-sync bounds: every completed command has host_before <= QUEUED mapped to the
    # host and END mapped <= its own time, for one linear device->host map: an offset and
    # a drift, since NTP slews CLOCK_MONOTONIC against a device clock such as PoCL's
    # CLOCK_MONOTONIC_RAW (0.04-3 ppm seen here; 50 ppm allowed, 35 us over a 0.7 s run)
    lower, upper = [], []  # (device time, host - device)
    for c in commands:
        if c["status"] != 0:
            continue
        if not c["host_before"]:
            fail("corr %d: completed command without host_before" % c["corr"])
        if not c["host_before"] < c["at"]:
            fail("corr %d: host_before %d not before the command's time %d"
                 % (c["corr"], c["host_before"], c["at"]))
        lower.append((c["queued"], c["host_before"] - c["queued"]))
        upper.append((c["end"], c["at"] - c["end"]))
    npairs = len(lower) + len(upper)
    if npairs:
        d0 = min(x for x, _ in lower)

        def slack(drift):  # the widest offset window at d0 for this drift (ns per ns)
            lo = max(v - drift * (x - d0) for x, v in lower)
            hi = min(v - drift * (x - d0) for x, v in upper)
            return hi - lo, lo, hi

        # slack() is concave in the drift (a min of lines minus a max of lines)
        d_lo, d_hi = -50e-6, 50e-6
        for _ in range(100):
            m1, m2 = d_lo + (d_hi - d_lo) / 3, d_hi - (d_hi - d_lo) / 3
            if slack(m1)[0] < slack(m2)[0]:
                d_lo = m1
            else:
                d_hi = m2
        drift = (d_lo + d_hi) / 2
        width, lo, hi = slack(drift)
        if width < 0:
            fail("clock bounds inconsistent: no device->host map fits them (best: offset "
                 "window [%d, %d] ns at drift %.3f ppm)" % (lo, hi, drift * 1e6))

    kinds = collections.Counter(c["kind"] for c in commands)
    knames = collections.Counter(strings.get(c["name"], "") for c in commands
                                 if c["kind"] == "kernel")
    print("calls: %d on %d threads, %d functions" % (sum(calls.values()), len(per_thread),
                                                      len(calls)))
    print("device commands: %d (%d completed, %d failed), kinds: %s" % (
        len(commands), completed, failed, ", ".join("%s=%d" % kv for kv in sorted(kinds.items()))))
    if npairs:
        print("clock bounds: %d; device->host offset in [%d, %d] ns at drift %.3f ppm"
              % (npairs, lo, hi, drift * 1e6))

    for fn, n in pairs(a.count).items():
        if calls[fn] != n:
            fail("%s: %d calls, expected %d" % (fn, calls[fn], n))
    for fn, n in pairs(a.min_count).items():
        if calls[fn] < n:
            fail("%s: %d calls, expected at least %d" % (fn, calls[fn], n))
    if a.commands is not None and len(commands) != a.commands:
        fail("%d device commands, expected %d" % (len(commands), a.commands))
    for k, n in pairs(a.kind).items():
        if kinds[k] != n:
            fail("%d %s commands, expected %d" % (kinds[k], k, n))
    for k, n in pairs(a.kernel).items():
        if knames[k] != n:
            fail("%d commands of kernel %s, expected %d (have %s)" % (knames[k], k, n,
                                                                       dict(knames)))
    if a.failed is not None and failed != a.failed:
        fail("%d failed commands, expected %d" % (failed, a.failed))
    if a.sequence is not None:
        first = next(iter(per_thread.values()), [])
        want = a.sequence.split(",")
        if first != want:
            fail("call sequence differs:\n  got  %s\n  want %s" % (",".join(first),
                                                                   ",".join(want)))
    if a.threads is not None and len(per_thread) != a.threads:
        fail("calls on %d threads, expected %d" % (len(per_thread), a.threads))
    for fn in a.untraced or []:
        if calls[fn]:
            fail("%s traced %d times" % (fn, calls[fn]))
    print("check_trace: ok")


if __name__ == "__main__":
    main()
