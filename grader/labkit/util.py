"""Kit paths, the one-line error type, and small printing helpers every module uses."""

import os
import re
import shlex
from pathlib import Path

# grader/labkit/util.py -> the kit's root folder.
ROOT = Path(os.path.abspath(__file__)).parents[2]
RESULTS = ROOT / "results"
SUBMISSION_BUILDS = ROOT / "build-submissions"

ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


class LabkitError(Exception):
    """A problem to report in one line, without a traceback."""


class UsageError(LabkitError):
    """A wrong option, found before any work was done: one line, exit status 2."""


def say(*parts):
    print(*parts, flush=True)


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


def first_errors(text, limit=15):
    """The first compiler error of a build log and the lines after it, without ninja's progress
    lines and the long command lines it echoes."""
    raw = [ANSI_RE.sub("", l).rstrip() for l in text.splitlines()]
    lines = [l for l in raw if l and len(l) < 400 and not l.startswith(("[", "FAILED:", "ninja:"))
             and not re.search(r"\s-[co]\s", l)]
    if not lines:  # nothing but ninja's own lines (e.g. "ninja: error: unknown target"): show them
        return "\n".join([l for l in raw if l][-limit:])
    at = next((i for i, l in enumerate(lines) if re.search(r"\berror\b", l, re.I)), None)
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
