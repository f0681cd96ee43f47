"""Submissions that once stopped a whole class run, or took a classmate's row, made on the spot
(none of them can sit in git: a broken archive, a name that is not UTF-8, 1,100 nested folders, a
file that makes the compiler print hundreds of megabytes). The staging test
(submission_safety_selftest.py) and the class test (grade_all_selftest.py) both use them."""
import io
import os
import tarfile
import zipfile
import zlib
from pathlib import Path

ODD_BYTES = b"\xff\xfe"  # no UTF-8 text holds them
DEEP_FOLDERS = 1100      # one folder in the next: Python's default recursion limit is 1,000


def corrupt_zip(path, members):
    """A zip of members ({name: text}, deflated) whose first member's deflate stream starts with
    a block of the reserved type: zlib.error when it is read, past the archive's own checks."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members.items():
            z.writestr(name, text)
    data = bytearray(Path(path).read_bytes())
    name_len, extra_len = (int.from_bytes(data[at:at + 2], "little") for at in (26, 28))
    data[30 + name_len + extra_len] = 0xFF  # BTYPE 11: "invalid block type"
    Path(path).write_bytes(data)


def broken_tar(path, first_name, first_text):
    """A .tar.gz whose stream breaks after two whole members: first_name (first_text), then 64 KiB
    of filler (enough that reading ahead never reaches the break while the first is read), then
    a deflate block of the reserved type: zlib.error when the third header is read."""
    members = io.BytesIO()
    with tarfile.open(fileobj=members, mode="w", format=tarfile.GNU_FORMAT) as t:
        for name, data in ((first_name, first_text.encode()), ("filler.txt", b"filler line\n" * ((64 << 10) // 12))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    whole = members.getvalue().rstrip(b"\0")  # no end-of-archive blocks: the stream goes on
    whole += b"\0" * (-len(whole) % tarfile.BLOCKSIZE)
    gz = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip header and trailer
    Path(path).write_bytes(gz.compress(whole) + gz.flush(zlib.Z_FULL_FLUSH) + b"\xff" * 64)


def odd_name(text):
    """A file or folder name: text, then bytes that are not UTF-8 (as os.fsdecode gives them)."""
    return os.fsdecode(text.encode() + ODD_BYTES)


def deep_folders(top):
    """top/d/d/.../d, DEEP_FOLDERS deep, made through folder fds (no path is ever that long).
    Remove it with `rm -rf`: shutil.rmtree recurses, and fails on it."""
    fd = os.open(Path(top).parent, os.O_RDONLY)
    name = Path(top).name
    for _ in range(DEEP_FOLDERS + 1):
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd, name = inner, "d"
    os.close(fd)


def compiler_flood(depth=150, warnings=16, width=60000, fanout=1):
    """A C++ file of under 1 MiB that makes GCC print about 290 MB (at the defaults) and then
    fail: it includes itself `fanout` times a level down to `depth` levels, and each inclusion
    prints `warnings` #warning lines of `width` characters, each echoed with its source line
    (fanout 2 and depth 12 make 8,191 inclusions: a gigabyte from a few KiB)."""
    lines = [f"#if __INCLUDE_LEVEL__ < {depth}"] + ["#include __FILE__"] * fanout + ["#endif"]
    lines += [f"#warning {'x' * width}"] * warnings
    lines += ["#error the flood's last word"]
    return "\n".join(lines) + "\n"
