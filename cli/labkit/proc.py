"""Running tools and lab programs. Every child runs in a process group of its own, so that a
timeout, Ctrl-C or a closed pipe can kill it together with everything it forked (the grader
starts the runner; a runner can hang in a kernel or an OpenMP barrier)."""

import os
import re
import resource
import shutil
import signal
import subprocess
import weakref
import sys
import threading

from .util import ROOT, LabkitError

CUDA_BIN = "/usr/local/cuda/bin"  # where the toolkit's installers put it

# What labkit keeps of a child's output (capture): a submission's compile that prints a gigabyte
# of warnings must cost labkit a few MiB, and its class folder no more (CappedOutput).
KEEP_BYTES = 4 << 20      # the whole output kept, at most (past it, only section openers and marks)
SECTION_HEAD = 256 << 10  # of each section: its start ...
SECTION_TAIL = 64 << 10   # ... and its end (a compiler's last error, ninja's summary)
MAX_LINE = 64 << 10       # one line, as on_line and echo see it (a longer one comes in pieces)
MAX_OPENER = 512          # an opening line kept once KEEP_BYTES is spent, at most ...
MAX_OPENERS = 4096        # ... and how many of them
READ_BYTES = 1 << 16      # read from a child's pipe at a time
CUT_MARK = "[labkit: {} bytes of output cut here]\n"


def tool_env():
    """PATH with /usr/local/cuda/bin appended when nvcc is installed there but not on PATH."""
    env = dict(os.environ)
    if not shutil.which("nvcc") and os.access(f"{CUDA_BIN}/nvcc", os.X_OK):
        env["PATH"] = env.get("PATH", "") + os.pathsep + CUDA_BIN
    return env


def find_cuda_tool(name):
    """A tool of the CUDA toolkit (compute-sanitizer, ncu): on PATH (tool_env's), else beside nvcc
    (as ./labkit setup looks for it), else in CUDA_BIN; None when it is nowhere."""
    path = tool_env().get("PATH")
    nvcc = shutil.which("nvcc", path=path)
    folders = [os.path.dirname(nvcc)] if nvcc else []
    return shutil.which(name, path=path) or shutil.which(name, path=os.pathsep.join(folders + [CUDA_BIN]))


def kill_group(proc):
    """SIGTERM the process group, then SIGKILL whatever is left after 3 s."""
    for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _limiter(limits):
    """A preexec_fn that lowers the child's resource limits ({resource.RLIMIT_*: value}) before
    it starts: they hold for everything it starts in turn."""
    def apply():
        for which, value in limits.items():
            hard = resource.getrlimit(which)[1]
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, value))
    return apply


# Every child labkit started and has not seen end: kill_all() ends them when a run that waits on
# them from several threads (grade-all) is interrupted.
_live = weakref.WeakSet()


def _start(cmd, cwd, limits=None, env=None, **streams):
    try:
        proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env={**tool_env(), **(env or {})},
                                start_new_session=True,
                                preexec_fn=_limiter(limits) if limits else None, **streams)
    except OSError as e:  # not found, not executable, bad interpreter line...
        raise LabkitError(f"cannot start {cmd[0]}: {e.strerror or e}") from None
    _live.add(proc)
    return proc


def kill_all():
    """Kills the process group of every child still running."""
    for proc in list(_live):
        if proc.poll() is None:
            kill_group(proc)


def execute(cmd, timeout=None, stdout=None, stderr=None, cwd=ROOT):
    """Runs cmd, its output going to stdout/stderr (inherited when None). Returns
    (returncode, timed_out)."""
    proc = _start(cmd, cwd, stdout=stdout, stderr=stderr)
    try:
        return proc.wait(timeout=timeout), False
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return proc.wait(), True
    except BaseException:  # Ctrl-C, or anything else that ends labkit: leave nothing behind
        kill_group(proc)
        raise


class CappedOutput:
    """What labkit keeps of a child's output, fed as it comes (feed) and read at its end (text):
    the output is cut into sections, each opened by a line that the regular expression `opens`
    matches (ninja's "[3/9] ..." and "FAILED: ..." lines: a section is one build step's output),
    or one section without it. Of each section the first SECTION_HEAD and the last SECTION_TAIL
    bytes are kept, with CUT_MARK between them saying how much was left out; past KEEP_BYTES in
    all, only the opening lines are (shortened). Memory stays within a few times KEEP_BYTES
    whatever the child prints, and the work per byte is a search, not a Python loop per line."""

    def __init__(self, opens=None):
        self.opens = re.compile(opens.encode(), re.M) if opens else None
        self.kept, self.kept_bytes, self.openers, self.cut_total = [], 0, 0, 0
        self.head, self.tail, self.cut = 0, bytearray(), 0
        self.carry, self.at_line_start = b"", True

    def feed(self, data):
        data = self.carry + data
        end = data.rfind(b"\n") + 1
        if not end and len(data) <= MAX_LINE:  # within a line: wait for its end
            self.carry = data
            return
        end = end or len(data)  # a line past MAX_LINE: taken in pieces
        self.carry = data[end:]
        self._region(data[:end])

    def text(self):
        """The output kept, as text (invalid UTF-8 replaced)."""
        if self.carry:
            self._region(self.carry)
            self.carry = b""
        self._close()
        return b"".join(self.kept).decode("utf-8", "replace")

    def _region(self, region):
        """Whole lines (but for a piece of a line past MAX_LINE)."""
        pos = 0
        for m in self.opens.finditer(region) if self.opens else ():
            start = m.start()
            if start < pos or (start == 0 and not self.at_line_start):
                continue
            self._add(region[pos:start])
            self._close()
            eol = region.find(b"\n", start)
            pos = len(region) if eol < 0 else eol + 1
            self._opener(region[start:pos])
        self._add(region[pos:])
        self.at_line_start = region.endswith(b"\n")

    def _store(self, data):
        if not data:
            return
        self.kept.append(bytes(data))
        self.kept_bytes += len(data)

    def _opener(self, line):
        if self.kept_bytes < KEEP_BYTES:
            self._store(line[:MAX_LINE])
        elif self.openers < MAX_OPENERS:
            self.openers += 1
            self._store(line if len(line) <= MAX_OPENER else line[:MAX_OPENER] + b"...\n")
        else:
            self.cut_total += len(line)

    def _add(self, data):
        if not data:
            return
        room = min(SECTION_HEAD - self.head, KEEP_BYTES - self.kept_bytes)
        if room > 0:
            if len(data) <= room:
                self._store(data)
                self.head += len(data)
                return
            # whole lines, but for a first line longer than the room
            take = data.rfind(b"\n", 0, room) + 1 or (room if not self.head else 0)
            self._store(data[:take])
            data = data[take:]
        self.head = SECTION_HEAD  # full: the rest of this section goes to its tail
        self.tail += data
        budget = SECTION_TAIL if self.kept_bytes < KEEP_BYTES else 0
        if len(self.tail) > budget:
            over = len(self.tail) - budget
            del self.tail[:over]
            self.cut += over

    def _close(self):
        """Ends the current section: its cut said, its tail kept."""
        if self.cut:
            nl = self.tail.find(b"\n") + 1  # the tail starts at a line's start
            if nl and nl < len(self.tail):
                self.cut += nl
                del self.tail[:nl]
            newline = b"" if not self.kept or self.kept[-1].endswith(b"\n") else b"\n"
            self._store(newline + CUT_MARK.format(self.cut).encode())
            self.cut_total += self.cut
        if self.tail:
            self._store(self.tail)
        self.head, self.tail, self.cut = 0, bytearray(), 0


class Lines:
    """Calls on_line(text) for each line of the bytes fed, a line past MAX_LINE in pieces."""

    def __init__(self, on_line):
        self.on_line, self.carry = on_line, b""

    def feed(self, data):
        data = self.carry + data
        start = 0
        while True:
            end = data.find(b"\n", start, start + MAX_LINE)
            if end < 0:
                if len(data) - start < MAX_LINE:
                    break
                end = start + MAX_LINE - 1
            self.on_line(data[start:end + 1].decode("utf-8", "replace"))
            start = end + 1
        self.carry = data[start:]

    def flush(self):
        if self.carry:
            self.on_line(self.carry.decode("utf-8", "replace"))
            self.carry = b""


def stream(cmd, on_line=None, timeout=None, cwd=ROOT, limits=None, stdin=None, env=None, on_chunk=None):
    """Runs cmd (stdout and stderr merged), calling on_line(text) for each line as it comes (a
    line past MAX_LINE in pieces) and on_chunk(bytes) for each piece read. limits: resource
    limits of the child (see _limiter); stdin: an open file it reads (else labkit's); env:
    variables set for it. Returns (returncode, timed_out)."""
    proc = _start(cmd, cwd, limits, env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timed_out = threading.Event()

    def on_timeout():
        timed_out.set()
        kill_group(proc)

    # A timer rather than wait(timeout): the loop below blocks on the pipe, not on the process.
    timer = threading.Timer(timeout, on_timeout) if timeout else None
    if timer:
        timer.daemon = True
        timer.start()
    lines = Lines(on_line) if on_line else None
    try:
        while chunk := proc.stdout.read1(READ_BYTES):
            if on_chunk:
                on_chunk(chunk)
            if lines:
                lines.feed(chunk)
        if lines:
            lines.flush()
        rc = proc.wait()
    except BaseException:
        kill_group(proc)
        raise
    finally:
        if timer:
            timer.cancel()
        proc.stdout.close()
    return rc, timed_out.is_set()


def capture(cmd, timeout=None, echo=False, cwd=ROOT, on_line=None, limits=None, stdin=None, env=None, opens=None):
    """Runs cmd (stdout and stderr merged) and returns (returncode, text, timed_out): text is what
    CappedOutput(opens) keeps of the output (all of it up to KEEP_BYTES). With echo, every
    line is also printed as it comes; on_line, if given, sees every line; limits, stdin and env
    as for stream."""
    out = CappedOutput(opens)

    def show(line):
        if echo:
            sys.stdout.write(line)
            sys.stdout.flush()
        if on_line:
            on_line(line)

    rc, timed_out = stream(cmd, show if echo or on_line else None, timeout=timeout, cwd=cwd, limits=limits,
                           stdin=stdin, env=env, on_chunk=out.feed)
    return rc, out.text(), timed_out
