"""Structure checks shared by the Chrome JSON export tests.

load(path) parses the file with Python's json module (strictly: no NaN) and
checks what every export must satisfy: the top-level object, known phases,
numeric ts (µs relative to the trace start, ns precision), B/E nesting per
thread, X durations, flows s/f paired by id. It returns (doc, slices) where
slices is a list of dicts {pid, tid, name, cat, ts, dur, args} for B/E pairs
and X events, ts/dur in integer ns.
"""
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def ns(us):
    return round(us * 1000)


def reject_constant(c):
    fail(f"non-JSON constant {c}")


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=reject_constant)
    except (UnicodeDecodeError, ValueError) as e:
        fail(f"{path} is not valid JSON: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("no traceEvents array")
    if doc.get("displayTimeUnit") != "ns":
        fail("displayTimeUnit")
    if not isinstance(doc.get("otherData"), dict):
        fail("no otherData")
    stacks, slices, flows = {}, [], {}
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        if ph not in ("M", "B", "E", "X", "i", "C", "s", "f"):
            fail(f"unknown phase {ph!r}: {e}")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail(f"pid/tid: {e}")
        if ph == "M":
            continue
        if not isinstance(e.get("ts"), (int, float)):
            fail(f"ts: {e}")
        key = (e["pid"], e["tid"])
        if ph == "B":
            stacks.setdefault(key, []).append(e)
        elif ph == "E":
            st = stacks.get(key)
            if not st:
                fail(f"E without B: {e}")
            b = st.pop()
            if b["name"] != e["name"] or e["ts"] < b["ts"]:
                fail(f"E does not close its B: {b} {e}")
            args = dict(b.get("args", {}))
            args.update(e.get("args", {}))
            slices.append(dict(pid=b["pid"], tid=b["tid"], name=b["name"], cat=b.get("cat"),
                               ts=ns(b["ts"]), dur=ns(e["ts"] - b["ts"]), args=args))
        elif ph == "X":
            if e.get("dur", -1) < 0:
                fail(f"X without dur: {e}")
            slices.append(dict(pid=e["pid"], tid=e["tid"], name=e["name"], cat=e.get("cat"),
                               ts=ns(e["ts"]), dur=ns(e["dur"]), args=e.get("args", {})))
        elif ph in ("s", "f"):
            flows.setdefault(e["id"], {})[ph] = e
    for key, st in stacks.items():
        if st:
            fail(f"unclosed B on {key}: {st[-1]}")
    for fid, fl in flows.items():
        # an "s" may wait forever (its command was never recorded); an "f" may not
        if "s" not in fl:
            fail(f"flow {fid} ends without a start: {fl}")
        if "f" in fl and fl["f"].get("bp") != "e":
            fail("flow end does not bind to its enclosing slice")
    doc["_flows"] = {k: v for k, v in flows.items() if "f" in v}
    return doc, slices


def enclosing(slices, ev):
    """The innermost slice on ev's thread that contains ev's ts."""
    t = ns(ev["ts"])
    best = None
    for s in slices:
        if (s["pid"], s["tid"]) == (ev["pid"], ev["tid"]) and s["ts"] <= t <= s["ts"] + s["dur"]:
            if best is None or s["dur"] < best["dur"]:
                best = s
    return best


def meta(doc, what):
    """{(pid, tid): name} of the M events `what` (process_name, thread_name)."""
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == what}
