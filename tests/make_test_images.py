#!/usr/bin/env python3
"""Writes the image files the loader's tests read: valid files of every supported kind, and the
broken ones fuzzing found the loader mishandling (truncated PGM/PPM/TGA, a header with a huge
width, a top-down BMP, 16-bit PNGs large and small, ASCII PGM).

    make_test_images.py OUTDIR
"""
import struct
import sys
import zlib
from pathlib import Path


def pnm(kind, width, height, maxval, body, header_extra=b""):
    return f"P{kind}\n".encode() + header_extra + f"{width} {height}\n{maxval}\n".encode() + body


def tga(width, height, pixels_bgr, rle=False):
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 10 if rle else 2, 0, 0, 0, 0, 0, width, height, 24, 0x20)
    if not rle:
        return header + pixels_bgr
    body = b""
    for i in range(0, len(pixels_bgr), 3):  # one raw packet per pixel: simple, and valid
        body += bytes([0]) + pixels_bgr[i:i + 3]
    return header + body


def bmp_top_down(width, height, rows_rgb):
    row_bytes = (width * 3 + 3) // 4 * 4
    data = b""
    for row in rows_rgb:  # top row first: that is what a negative height means
        line = b"".join(bytes([b, g, r]) for r, g, b in row)
        data += line + b"\0" * (row_bytes - len(line))
    info = struct.pack("<IiiHHIIiiII", 40, width, -height, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + 40 + len(data), 0, 0, 54) + info + data


def png(width, height, bit_depth, color_type, rows):
    """rows: an iterable of raw row bytes (without the filter byte)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    packer = zlib.compressobj(1)
    idat = b"".join(packer.compress(b"\0" + row) for row in rows) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    ramp = bytes(range(64)) * 64  # 64 x 64, x in every row
    files = {
        # valid
        "ok.pgm": pnm(5, 64, 64, 255, ramp),
        "ok_ascii.pgm": pnm(2, 3, 2, 255, b"0 1 2\n253 254 255\n", b"# a comment\n"),
        "ok_ascii_maxval1000.pgm": pnm(2, 2, 1, 1000, b"0 1000\n"),
        "ok_16bit.pgm": pnm(5, 2, 1, 65535, b"\x00\x00\xff\xff"),
        "ok.ppm": pnm(6, 1, 1, 255, bytes([255, 255, 255])),
        "ok.tga": tga(2, 2, bytes([0, 0, 0] * 3 + [255, 255, 255])),
        "ok_rle.tga": tga(2, 2, bytes([0, 0, 0] * 3 + [255, 255, 255]), rle=True),
        "ok_top_down.bmp": bmp_top_down(4, 3, [[(255, 255, 255)] * 4, [(0, 0, 0)] * 4, [(0, 0, 0)] * 4]),
        "ok_rgba16.png": png(64, 48, 16, 6, (b"\xff\xff\x00\x00\x00\x00\xff\xff" * 64 for _ in range(48))),
        # broken
        "truncated.pgm": pnm(5, 64, 64, 255, ramp[:100]),
        "truncated_huge.pgm": pnm(5, 16384, 16384, 255, b"\x7f" * 100),
        "huge_width.pgm": pnm(5, 99999999999, 4, 255, b"\0" * 16),
        "truncated.ppm": pnm(6, 64, 64, 255, b"\0" * 100),
        "truncated_ascii.pgm": pnm(2, 3, 2, 255, b"0 1 2\n"),
        "truncated.tga": tga(64, 64, bytes(64 * 64 * 3))[:18 + 1000],
        "truncated_rle.tga": tga(64, 64, bytes(64 * 64 * 3), rle=True)[:18 + 1000],
        "pbm.pbm": b"P4\n8 1\n\xff",
        "huge_rgba16.png": png(16384, 16384, 16, 6, (bytes(16384 * 8) for _ in range(16384))),
    }
    for name, data in files.items():
        (out / name).write_bytes(data)


if __name__ == "__main__":
    main()
