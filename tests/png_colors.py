#!/usr/bin/env python3
"""Fails unless a PNG screenshot is drawn: at least MIN distinct colours and a second colour
covering some of it. A tiny decoder (zlib and the five PNG filters), no imaging library.
Usage: png_colors.py FILE.png MIN"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("FAIL: %s is not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit("FAIL: unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
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
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path, minimum = sys.argv[1], int(sys.argv[2])
    width, height, bpp, rows = decode(path)
    counts = {}
    for line in rows:
        for x in range(0, len(line), bpp):
            px = line[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    total = width * height
    top = sorted(counts.values(), reverse=True)
    background_share = top[0] / total
    print("%s: %dx%d, %d colours, background %.1f%%" % (path, width, height, len(counts), 100 * background_share))
    if len(counts) < minimum:
        raise SystemExit("FAIL: only %d colours: the page looks blank" % len(counts))
    if background_share > 0.98:
        raise SystemExit("FAIL: one colour covers %.1f%% of the page" % (100 * background_share))


if __name__ == "__main__":
    main()
