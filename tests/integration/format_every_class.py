#!/usr/bin/python3
"""Reads the every-class trace (every_class.c) with babeltrace2's Python
bindings and compares every field of every event with what hetrace's own
decoders print for it (ht_test_dump). Field types and flag names come from
src/format/events.def, the description both sides are generated from.

    format_every_class.py TRACE DUMP EVENTS_DEF
Exits 1 with the first difference.
"""
import re
import sys

import bt2


def parse_def(path):
    """Return: {class name: [(field, type, param)]}, {flags name: [labels]}."""
    classes, flags, cur = {}, {}, None
    for line in open(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        head = line.split(":", 1)[0].split()
        if line[0] in " \t":
            cur.append((head[1], head[0], head[2] if len(head) > 2 else None))
        elif head[0] == "event":
            cur = classes.setdefault(head[1], [])
        elif head[0] == "flags":
            flags[head[1]] = [l.split("/")[0] for l in line.split(":", 1)[1].split()]
    return classes, flags


def fail(msg):
    print("format_every_class: FAIL: " + msg)
    sys.exit(1)


def label(field):
    labels = list(field.labels)
    return labels[0] if labels else "?"


def bt2_events(trace, classes, flags):
    strings, out = {}, []
    it = bt2.TraceCollectionMessageIterator(trace)
    for msg in it:
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        name = ev.name.split(":", 1)[1]
        p = ev.payload_field
        stream = ev.stream.name or ""
        if name == "string_def" and ev.packet.context_field["vtid"] == 300 and int(p["id"]) in (3, 7, 9):
            strings[int(p["id"])] = str(p["value"])
            continue
        vals = []
        for fname, ftype, param in classes[name]:
            vals.append(norm_bt2(p, fname, ftype, param, flags, strings))
        out.append((msg.default_clock_snapshot.value, name, vals))
    return out


def s(strings, v):
    return strings.get(int(v), "?") if int(v) else "?"


def norm_bt2(p, fname, ftype, param, flags, strings):
    if ftype == "fnargs":
        if int(p["nargs"]) == 0:
            return ""
        sel = p["args"].selected_option
        return ",".join(str(int(sel[k])) for k in sel)
    if ftype == "iargs":
        parts = []
        for a in p["args"]:
            t = label(a["type"])
            v = a["value"].selected_option
            if t == "i64":
                val = str(int(v))
            elif t == "f64":
                val = "%g" % float(v)
            elif t == "str":
                val = s(strings, v)
            else:
                val = str(int(v))
            parts.append("%s:%s" % (s(strings, a["key"]), val))
        return ",".join(parts)
    if ftype == "sig":
        return ",".join("%s:%s:%s" % (a["name"], label(a["type"]), label(a["role"]))
                        for a in p["args"])
    f = p[fname]
    if ftype == "memruns":
        return ",".join("0x%x%+d*%d@%d:%d:%d:%s" % (int(r["addr"]), int(r["stride"]), int(r["count"]),
                                                    int(r["site"]), int(r["item"]), int(r["size"]),
                                                    label(r["kind"])) for r in f)
    if ftype == "u64x3":
        return ",".join(str(int(x)) for x in f)
    if ftype == "enum8":
        return label(f)
    if ftype == "flags32":
        names = [n for i, n in enumerate(flags[param]) if int(f) & (1 << i)]
        return "|".join(names) or "0"
    if ftype == "strid":
        return s(strings, f)
    if ftype == "str":
        return str(f)
    if ftype == "f64":
        return "%g" % float(f)
    if ftype == "hex64":
        return str(int(f))
    return str(int(f))


def dump_events(path, classes):
    out = []
    for line in open(path, encoding="utf-8"):
        parts = line.rstrip("\n").split(" ", 4)
        if len(parts) < 4 or parts[2] == "-" or parts[1] == "process":
            continue
        name = parts[3]
        fields = dict(re.findall(r' (\w+)=("[^"]*"|\S*)', " " + (parts[4] if len(parts) > 4 else "")))
        vals = []
        for fname, ftype, _ in classes[name]:
            v = fields.get(fname)
            if v is None:
                fail("dump lacks %s.%s: %s" % (name, fname, line))
            if ftype == "str":
                v = v[1:-1]
            elif ftype == "hex64":
                v = str(int(v, 16))
            vals.append(v)
        out.append((int(parts[2]), name, vals))
    return out


def main():
    trace, dump, defs = sys.argv[1:4]
    classes, flags = parse_def(defs)
    a = sorted(bt2_events(trace, classes, flags), key=lambda e: e[0])
    b = sorted(dump_events(dump, classes), key=lambda e: e[0])
    if len(a) != len(b):
        fail("babeltrace2 read %d events, our reader %d" % (len(a), len(b)))
    seen = set()
    for (ta, na, va), (tb, nb, vb) in zip(a, b):
        if (ta, na) != (tb, nb):
            fail("event order differs: %s@%d vs %s@%d" % (na, ta, nb, tb))
        for (fname, _, _), x, y in zip(classes[na], va, vb):
            if x != y:
                fail("%s.%s: babeltrace2 %r, hetrace %r" % (na, fname, x, y))
        seen.add(na)
    missing = set(classes) - seen
    if missing:
        fail("classes not in the trace: %s" % ", ".join(sorted(missing)))
    print("format_every_class: %d events of %d classes agree field by field" % (len(a), len(seen)))


if __name__ == "__main__":
    main()
