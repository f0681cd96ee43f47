"""Kit paths, the one-line error type, and small printing helpers every module uses."""

import hashlib
import os
import re
import shlex
import tempfile
from pathlib import Path

# cli/labkit/util.py -> the kit's root folder.
ROOT = Path(os.path.abspath(__file__)).parents[2]
RESULTS = ROOT / "results"

ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


class LabkitError(Exception):
    """A problem to report in one line, without a traceback."""


class UsageError(LabkitError):
    """A wrong option, found before any work was done: one line, exit status 2."""


def printable(text):
    """text with what a file name may hold that no UTF-8 output can (the bytes of a name that is
    not UTF-8, which os.fsdecode keeps as surrogates) shown as \\xNN: a submission's file and
    folder names pass through here before they reach a note, a log or the terminal."""
    text = str(text)
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file name makes (from a JSON file's \\ud800)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def error_kind(e):
    """An exception's class as Python names it: ValueError, zlib.error, tarfile.ReadError."""
    kind = e.__class__
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def say(*parts):
    print(*(printable(p) for p in parts), flush=True)


def rel(path):
    """A path relative to the repository root when it is inside it, for shorter messages."""
    path = Path(os.path.abspath(path))
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def show_cmd(cmd):
    say("+ " + " ".join(shlex.quote(rel(c)) if os.path.isabs(str(c)) else shlex.quote(str(c))
                        for c in cmd))


def kit_path(path):
    """A user-given folder or file, relative to the kit's root (like every kit folder: build/,
    results/, dist/, ...) unless absolute."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else ROOT / p


def inside(path, folder):
    """Whether path is folder or lies under it, symbolic links resolved on both sides."""
    path, folder = Path(os.path.realpath(path)), Path(os.path.realpath(folder))
    return path == folder or folder in path.parents


def default_work_dir():
    """Where submissions are staged and built unless --work-dir says otherwise: a cache folder
    outside the kit (a submission inside it could reach solutions/ by a relative #include), one per
    kit checkout, so that two kits on one machine never share a build."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    tag = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    return base / "labkit" / tag / "submissions"


def write_atomic(path, data):
    """Writes data (text or bytes) to path through a temporary file in the same folder and
    os.replace: a reader, a Ctrl-C or a kill never meets half a file, only the old one or the new
    one. The file keeps the mode of the one it replaces (0644 when new)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def first_errors(text, limit=15):
    """The first compiler error of a build log and the lines after it, without ninja's progress
    lines and the long command lines it echoes."""
    raw = [ANSI_RE.sub("", l).rstrip() for l in text.splitlines()]
    lines = [l for l in raw if l and len(l) < 400 and not l.startswith(("[", "FAILED:", "ninja:"))
             and not re.search(r"\s-[co]\s", l)]
    if not lines:  # nothing but ninja's own lines (e.g. "ninja: error: unknown target"): show them
        return "\n".join([l for l in raw if l][-limit:])
    # The linker's own errors ("multiple definition of", "undefined reference to") come before its
    # "collect2: error" line, and say what is wrong.
    at = next((i for i, l in enumerate(lines) if re.search(r"\berror\b|multiple definition|undefined reference", l, re.I)),
              None)
    if at is None:
        return "\n".join(lines[-limit:])
    if at > 0 and lines[at - 1].endswith(":"):  # "In function ...:" context
        at -= 1
    return "\n".join(lines[at:at + limit])


def parse_sizes(text):
    """'1024,2048x512' -> [(1024, 1024), (2048, 512)]"""
    sizes = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        m = re.fullmatch(r"(\d+)(?:x(\d+))?", item)
        if not m:
            raise LabkitError(f"bad size {item!r}: expected N or WxH")
        w = int(m.group(1))
        sizes.append((w, int(m.group(2)) if m.group(2) else w))
    return sizes


def print_table(header, rows):
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    say(line(header))
    say(line(["-" * w for w in widths]))
    for r in rows:
        say(line(r))


def markdown_table(header, rows):
    """The lines of a Markdown table."""
    return (["| " + " | ".join(map(str, header)) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(map(str, r)) + " |" for r in rows])
