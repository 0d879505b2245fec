#!/usr/bin/env python3
"""Counts the coloured pixels of a PNG screenshot inside a rectangle.

usage: png_check.py PNG X,Y,W,H MIN  -- fails unless at least MIN pixels in
the rectangle are coloured (max - min channel > 48: slices, not the page's
greys and whites). Python's standard library only (zlib).
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


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
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
