#!/usr/bin/env python3
"""tests/cli/png_check.py PNG WIDTH [COLOR...]: check a PNG that
rsvg-convert wrote: signature, IHDR size (width WIDTH), every scanline
decodable (zlib + PNG filters), not one uniform colour, enough drawn
pixels, and each COLOR (#rrggbb) present.  Prints one line per finding;
exit 0 when every check holds.  Plain Python (zlib), no imaging library."""
import struct
import sys
import zlib


def chunks(data):
    pos = 8
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError("bad CRC in chunk %r" % kind)
        yield kind, body
        pos += 12 + n


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    idat, ihdr = b"", None
    for kind, body in chunks(data):
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unexpected PNG format %r" % (ihdr,))
    bpp = 4 if ctype == 6 else 3
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, None, []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        prev = prev or bytearray(stride)
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            c = prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, prev[i], (a + prev[i]) // 2, paeth(a, prev[i], c))[f]) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    path, want_w, colors = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    w, h, bpp, rows = pixels(path)
    seen, drawn = set(), 0
    for line in rows:
        for i in range(0, len(line), bpp):
            px = tuple(line[i:i + 3])
            seen.add(px)
            if px != (255, 255, 255):
                drawn += 1
    good = True
    print("size %dx%d, %d colours, %.1f%% drawn" % (w, h, len(seen), 100.0 * drawn / (w * h)))
    if w != want_w or h < 200:
        print("unexpected size"); good = False
    if len(seen) < 16 or drawn < 0.02 * w * h:
        print("nearly uniform picture"); good = False
    for c in colors:
        rgb = tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))
        if not any(max(abs(p[k] - rgb[k]) for k in range(3)) <= 12 for p in seen):
            print("colour %s not drawn" % c); good = False
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
