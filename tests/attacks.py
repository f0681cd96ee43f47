"""Submissions that once stopped a whole class run, or took a classmate's row, made on the spot
(none of them can sit in git: a broken archive, a name that is not UTF-8, 1,100 nested folders, a
file that makes the compiler print hundreds of megabytes). The staging test
(submission_safety_selftest.py) and the class test (grade_all_selftest.py) both use them."""
import io
import os
import random
import tarfile
import zipfile
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


def broken_tar(path, first_name, second_name):
    """A .tar.gz whose first member (first_name) is whole, then a stream broken in a way that
    Python's zlib reports as zlib.error (a 4 KiB run of 0x55 at 70% of the file, inside the
    second member). Returns the first member's text."""
    rnd = random.Random(1)
    first, second = ("".join(f"int v{rnd.randrange(10**6)} = {rnd.randrange(10**6)};\n" for _ in range(n))
                     for n in (3000, 20000))
    with tarfile.open(path, "w:gz") as t:
        for name, text in ((first_name, first), (second_name, second)):
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            t.addfile(info, io.BytesIO(text.encode()))
    data = bytearray(Path(path).read_bytes())
    at = int(len(data) * 0.7)
    data[at:at + 4096] = b"\x55" * 4096
    Path(path).write_bytes(data)
    return first


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


def compiler_flood(depth=150, warnings=16, width=60000):
    """A C++ file of under 1 MiB that makes GCC print about 290 MB (at the defaults) and then
    fail: it includes itself `depth` times, and each level prints `warnings` #warning lines of
    `width` characters, each with the whole include chain above it."""
    lines = [f"#if __INCLUDE_LEVEL__ < {depth}", "#include __FILE__", "#endif"]
    lines += [f"#warning {'x' * width}"] * warnings
    lines += ["#error the flood's last word"]
    return "\n".join(lines) + "\n"
