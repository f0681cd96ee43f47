"""Running tools and lab programs. Every child runs in a process group of its own, so that a
timeout, Ctrl-C or a closed pipe can kill it together with everything it forked (the grader
starts the runner; a runner can hang in a kernel or an OpenMP barrier)."""

import os
import resource
import shutil
import signal
import subprocess
import weakref
import sys
import threading

from .util import ROOT, LabkitError

CUDA_BIN = "/usr/local/cuda/bin"  # where the toolkit's installers put it


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


def stream(cmd, on_line, timeout=None, cwd=ROOT, limits=None, stdin=None, env=None):
    """Runs cmd (stdout and stderr merged), calling on_line(text) for each line as it comes.
    limits: resource limits of the child (see _limiter); stdin: an open file it reads (else
    labkit's); env: variables set for it. Returns (returncode, timed_out)."""
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
    try:
        for raw in proc.stdout:
            on_line(raw.decode("utf-8", "replace"))
        rc = proc.wait()
    except BaseException:
        kill_group(proc)
        raise
    finally:
        if timer:
            timer.cancel()
        proc.stdout.close()
    return rc, timed_out.is_set()


def capture(cmd, timeout=None, echo=False, cwd=ROOT, on_line=None, limits=None, stdin=None, env=None):
    """Runs cmd (stdout and stderr merged) and returns (returncode, text, timed_out); with echo,
    every line is also printed as it comes; on_line, if given, sees every line; limits, stdin
    and env as for stream."""
    lines = []

    def keep(line):
        lines.append(line)
        if echo:
            sys.stdout.write(line)
            sys.stdout.flush()
        if on_line:
            on_line(line)

    rc, timed_out = stream(cmd, keep, timeout=timeout, cwd=cwd, limits=limits, stdin=stdin, env=env)
    return rc, "".join(lines), timed_out
