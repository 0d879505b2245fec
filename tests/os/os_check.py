#!/usr/bin/env python3
"""Checks cpu_state records in `ht_test_dump` output (tests/os).

  os_check.py invariants DUMP   per thread: intervals never overlap, leave no
                                gap unless OS records were lost, and cover the
                                thread's events; prints "threads=N intervals=M"
  os_check.py state DUMP THREAD REGION STATE
                                ms of STATE inside the first REGION of the
                                thread named THREAD; prints "<state_ms> <region_ms>"
"""
import re
import sys

FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
TOL = 200_000  # ns: event times come from the cycle counter, switch times from perf


def parse(path):
    for line in open(path, errors="replace"):
        parts = line.split(" ", 4)
        if len(parts) < 4 or parts[2] == "-":
            continue
        fields = {k: v.strip('"') for k, v in FIELD.findall(parts[4] if len(parts) > 4 else "")}
        yield parts[0], parts[1], int(parts[2]), parts[3], fields


def load(path):
    states, names, events, lost, exited = {}, {}, {}, {}, set()
    for proc, stream, ts, ev, f in parse(path):
        if ev == "clock_anchor" and f.get("kind") == "exit":
            exited.add(proc)
        if ev == "cpu_state":
            key = (proc, int(f["tid"]))
            states.setdefault(key, []).append((int(f["begin_ns"]), int(f["end_ns"]), f["state"]))
        elif ev == "thread_info":
            names[(proc, int(f["tid"]))] = f["name"]
        elif ev == "lost" and f.get("kind") == "os_record":
            lost[proc] = lost.get(proc, 0) + int(f["count"])
        elif stream.startswith("thread-") and ev not in ("lost", "thread_info"):
            tid = int(stream[7:].split(".")[0])
            events.setdefault((proc, tid), []).append((ts, ev, f))
    for v in states.values():
        v.sort()
    # a process image replaced by exec() never drains its rings: nothing to check there
    events = {k: v for k, v in events.items() if k[0] in exited}
    return states, names, events, lost


def invariants(path):
    states, names, events, lost = load(path)
    bad = []
    n = 0
    for key, iv in sorted(states.items()):
        n += len(iv)
        for b, e, s in iv:
            if e <= b:
                bad.append(f"{key}: empty or reversed interval {b}-{e} {s}")
        for (b0, e0, s0), (b1, e1, s1) in zip(iv, iv[1:]):
            if b1 < e0:
                bad.append(f"{key}: {s0} {b0}-{e0} overlaps {s1} {b1}-{e1}")
            elif b1 > e0 and not lost.get(key[0]):
                bad.append(f"{key}: gap {e0}-{b1} without lost OS records")
        app = [ts for ts, ev, f in events.get(key, [])]
        if app and not lost.get(key[0]) and (min(app) < iv[0][0] - TOL or max(app) > iv[-1][1] + TOL):
            bad.append(f"{key} {names.get(key)}: events {min(app)}..{max(app)} outside "
                       f"{iv[0][0]}..{iv[-1][1]}")
    for key in events:
        if key not in states:
            bad.append(f"{key} {names.get(key)}: thread with events but no cpu_state")
    for b in bad[:20]:
        print("FAIL", b)
    print(f"threads={len(states)} intervals={n} lost={sum(lost.values())}")
    return 1 if bad else 0


def state(path, thread, region, want):
    states, names, events, lost = load(path)
    for key, name in names.items():
        if name != thread or key not in states:
            continue
        begin = end = None
        for ts, ev, f in events.get(key, []):
            if ev == "region_begin" and f.get("name") == region and begin is None:
                begin = ts
            elif ev == "region_end" and f.get("name") == region and begin is not None:
                end = ts
                break
        if begin is None or end is None:
            continue
        total = sum(max(0, min(e, end) - max(b, begin))
                    for b, e, s in states.get(key, []) if s == want)
        print(f"{total / 1e6:.3f} {(end - begin) / 1e6:.3f}")
        return 0
    print(f"no thread '{thread}' with region '{region}'", file=sys.stderr)
    return 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "invariants":
        sys.exit(invariants(sys.argv[2]))
    if len(sys.argv) == 6 and sys.argv[1] == "state":
        sys.exit(state(*sys.argv[2:]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
