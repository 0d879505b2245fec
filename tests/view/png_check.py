#!/usr/bin/env python3
"""Counts the coloured pixels of a PNG screenshot inside a rectangle.

usage: png_check.py PNG X,Y,W,H MIN  -- fails unless at least MIN pixels in
the rectangle are coloured (max - min channel > 48: slices, not the page's
greys and whites).
usage: png_check.py --table-edge PNG  -- the widest table header in the
screenshot (the rows of the header background #f6f8fa from the left margin
that reach furthest right) ends with its last header's text inside its
cell: the band's rightmost dark pixel lies at least 5 pixels (of the cell's
8 of padding) left of its end. A table cut at its box's edge (clipped,
scrolled) has text running to the edge.
Python's standard library only (zlib).
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit("%s: unsupported PNG (depth %d, colour type %d)" % (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def table_edge(path):
    w, h, bpp, rows = read_png(path)
    head = bytes((0xf6, 0xf8, 0xfa))
    best, band = 0, []
    for y in range(h):
        line = rows[y]
        if bytes(line[12 * bpp:12 * bpp + 3]) != head:
            continue
        x = w - 1
        while x > 12 and bytes(line[x * bpp:x * bpp + 3]) != head:
            x -= 1
        if x - 10 > best + 2:
            best, band = x - 10, [y]
        elif x - 10 >= best - 2:
            band.append(y)
    if best < 200:
        sys.exit("%s: no table header found" % path)
    end = 10 + best
    dark = max((x for y in band for x in range(10, min(w, end + 20))
                if max(rows[y][x * bpp:x * bpp + 3]) < 128), default=-1)
    print("%s: the widest table header spans x 10..%d, y %d..%d; its text ends at x %d"
          % (path, end, band[0], band[-1], dark))
    if dark < 0 or dark > end - 5:
        sys.exit("%s: the last header's text runs to the table's edge (cut)" % path)


def main():
    if sys.argv[1:2] == ["--table-edge"] and len(sys.argv) == 3:
        return table_edge(sys.argv[2])
    if len(sys.argv) != 4:
        sys.exit("\n".join(__doc__.strip().splitlines()[2:11]))
    w, h, bpp, rows = read_png(sys.argv[1])
    x0, y0, rw, rh = (int(v) for v in sys.argv[2].split(","))
    coloured = 0
    for y in range(max(0, y0), min(h, y0 + rh)):
        line = rows[y]
        for x in range(max(0, x0), min(w, x0 + rw)):
            px = line[x * bpp:x * bpp + 3]
            coloured += max(px) - min(px) > 48
    print("%d coloured pixels in %s" % (coloured, sys.argv[2]))
    if coloured < int(sys.argv[3]):
        sys.exit("%s: only %d coloured pixels in the timeline, expected at least %s"
                 % (sys.argv[1], coloured, sys.argv[3]))


if __name__ == "__main__":
    main()
