"""Bubblewrap, the sandbox of everything that compiles or runs a submission's code.

labkit compiles a submission's runner inside it (CompileSandbox, handed to build.make); each
lab's grader runs every runner inside it when handed `--sandbox PATH_TO_BWRAP`
(programs.sandbox_option). Inside: a user namespace (uid 65534 when labkit runs as root, else
the caller's own uid), no network, a PID namespace that dies with labkit, /usr read-only, of /etc
only what the compilers need (so `#include "/etc/shadow"` finds nothing), and of the kit a
read-only view without the reference solution, the corpus, the results, the build folders and the
class files of the run (its output folder and roster, wherever they are in the kit).

Where bubblewrap cannot start (not installed, no user namespaces) or --no-sandbox turns it off,
grading still runs, with resource limits on the compile, and the output, every report and the
class files say "not sandboxed: <why>"."""

import functools
import os
import re
import resource
import shutil
from dataclasses import dataclass
from pathlib import Path

from .dist import KIT_ONLY
from .confine import NO_GROUPS
from .facts import FACTS
from .proc import capture, tool_env
from .util import ROOT, LabkitError, inside

PROBE_TIMEOUT_S = 30
OFFLINE_BWRAP = ROOT / "third_party" / "root" / "usr" / "bin" / "bwrap"  # from ./labkit setup --offline
TMP_BYTES = 1 << 30  # the sandbox's /tmp, in memory: nvcc's intermediate files
SHM_BYTES = 64 << 20  # its /dev/shm: compilers use none; a bound, not bubblewrap's half of the host's memory
# Per-process limits of a submission's compile, sandboxed or not: a file that #includes
# /dev/zero makes the compiler read until memory runs out, which must end as a compile error, not
# in the OOM killer; no object file is a gigabyte.
COMPILE_LIMITS = {resource.RLIMIT_AS: 8 << 30, resource.RLIMIT_FSIZE: 1 << 30, resource.RLIMIT_CORE: 0}
# What every sandbox is made of, from its one home, the grader's sandbox.hpp (as labkit-facts exports
# it, facts.py): the system it sees besides /usr (the top-level folders, links into /usr on a merged
# /usr, and what of /etc the tools need), bwrap's options of isolation, of a fresh /proc and /dev,
# and the read-only remounts that come last, and the uid inside when labkit runs as root.
_SANDBOX = FACTS["sandbox"]
SYSTEM_DIRS = tuple(_SANDBOX["system_dirs"])
ETC_KEPT = tuple(_SANDBOX["etc_kept"])
ISOLATION = tuple(_SANDBOX["isolation"])
FRESH_SYSTEM = tuple(_SANDBOX["fresh_system"])
READ_ONLY_LAST = tuple(_SANDBOX["read_only_last"])
NOBODY, NOBODY_GROUP = _SANDBOX["uid"], _SANDBOX["gid"]
# What of the kit a submission's compile must not see, as patterns under the kit's root: the
# kit-only folders (the reference, the kit tests and the corpus that hold broken and cheating
# student files: what `dist` leaves out of the student tarball), every report and build folder,
# and git's history, which holds the reference too. The class files of a run (its --out, roster,
# --csv and --json) are hidden as well, wherever they are (CompileSandbox's private).
HIDDEN = tuple(p.rstrip("/") for p in KIT_ONLY) + ("results", "dist", ".git", "build*")
NINJA_COMMAND_RE = re.compile(r"^ command = (\S+)", re.M)


@dataclass(frozen=True)
class Sandbox:
    """The sandbox of one labkit run: bwrap's path, or None and why there is none."""
    bwrap: str | None = None
    why_not: str = ""

    @property
    def label(self):
        """What the output, the reports and the class files say about it."""
        if self.bwrap:
            return f"bubblewrap, uid {NOBODY if os.geteuid() == 0 else os.getuid()}"
        return f"not sandboxed: {self.why_not}"

    @property
    def grader_value(self):
        """The value of the graders' --sandbox option."""
        return self.bwrap or "off"


def find_bwrap():
    """bwrap on PATH, else the one `./labkit setup --offline` unpacked; None when neither."""
    found = shutil.which("bwrap")
    if found:
        return found
    return str(OFFLINE_BWRAP) if os.access(OFFLINE_BWRAP, os.X_OK) else None


def choose(disabled=False):
    """The sandbox of this run: bubblewrap when it starts here, else none and why."""
    if disabled:
        return Sandbox(None, "turned off with --no-sandbox")
    bwrap = find_bwrap()
    if bwrap is None:
        return Sandbox(None, "bubblewrap (bwrap) is not installed; ./labkit setup installs it")
    why = probe(bwrap)
    return Sandbox(None if why else bwrap, why)


@functools.lru_cache(maxsize=None)
def probe(bwrap):
    """'' when bwrap starts a sandbox here, else why not, in its own words: once per run, since a
    machine without user namespaces refuses every time."""
    try:
        rc, out, timed_out = capture([bwrap, *system_view(), "/usr/bin/true"], timeout=PROBE_TIMEOUT_S)
    except LabkitError as e:
        return str(e)
    if timed_out:
        return f"{bwrap} did not start within {PROBE_TIMEOUT_S} s"
    if rc != 0:
        said = [l.strip() for l in out.splitlines() if l.strip()]
        return f"bubblewrap cannot start here ({said[-1] if said else f'exit status {rc}'})"
    return ""


def identity():
    """As root: nobody, in the sandbox's user namespace; as anyone else: themselves."""
    return ["--uid", str(NOBODY), "--gid", str(NOBODY_GROUP)] if os.geteuid() == 0 else []


def system_view():
    """bwrap options of every sandbox labkit starts (the probe's, a compile's): isolated as the
    grader's are, the system read-only, a small /etc, a fresh /proc, /dev and /tmp."""
    args = [*ISOLATION, *identity(), "--ro-bind", "/usr", "/usr"]
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for f in ETC_KEPT:
        args += ["--ro-bind-try", f, f]
    return args + [*FRESH_SYSTEM, "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]


def hidden_folders(root=ROOT):
    """The folders of HIDDEN that exist under root (real folders only: a link is no place to
    mount over, and where it points is not in the sandbox)."""
    root = Path(os.path.realpath(root))
    found = {p for pattern in HIDDEN for p in root.glob(pattern) if p.is_dir() and not p.is_symlink()}
    return sorted(str(p) for p in found)


def toolkits(build_dir, extra=(), keep_out=()):
    """Install prefixes (the folder above bin/) of the programs a build runs (its build.ninja's
    commands, and extra) that live outside /usr and the kit, e.g. nvcc in /opt/cuda/bin: they
    must be visible in the sandbox. Never "/", the home folder, or a folder that holds the kit or
    one of keep_out."""
    try:
        names = set(NINJA_COMMAND_RE.findall((Path(build_dir) / "build.ninja").read_text(errors="replace")))
    except OSError:
        names = set()
    path, out = tool_env().get("PATH"), set()
    for name in names | set(extra):
        found = shutil.which(name, path=path)
        if not found:
            continue
        real = Path(os.path.realpath(found))
        prefix = real.parent.parent if real.parent.name == "bin" else real.parent
        if inside(real, "/usr") or inside(real, ROOT) or prefix in (Path("/"), Path.home()) \
                or any(inside(folder, prefix) for folder in (ROOT, *keep_out)):
            continue
        out.add(str(prefix))
    return sorted(out)


def private_mounts(paths, bound, hidden):
    """bwrap options that hide paths (the class files: folders and files) where the sandbox
    would show them: inside one of the folders bound (the kit, the toolkits) and not inside one
    already hidden. A folder becomes an empty read-only tmpfs, a file /dev/null."""
    args = []
    for path in sorted({os.path.realpath(p) for p in paths if p}):
        if not os.path.exists(path) or not any(inside(path, b) for b in bound) \
                or any(inside(path, h) for h in hidden):
            continue
        if os.path.isdir(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    return args


class CompileSandbox:
    """The sandbox of one submission's compile (build.make's confine): the system view, the kit
    read-only without HIDDEN and without the run's private class files (its output folder,
    roster, class CSV and JSON: private, a list of paths), the work folder hidden but for this
    submission's staged sources (read-only) and build folder (writable, as /tmp is), the work
    folder's compile cache when there is one (cache; writable: batch.compile_cache says why that
    is safe), and an environment of PATH, HOME, TMPDIR and ccache's variables only (a build can
    #include /proc/self/environ). The meson setup of that build folder runs outside: it runs no student
    code and reads no student file. groups (confine.Groups): the compile's control group, its
    processes and memory counted apart from every other sandbox's."""

    limits = COMPILE_LIMITS

    def __init__(self, sandbox, build_dir, staged, work_root, private=(), groups=NO_GROUPS, cache=None):
        self.sandbox = sandbox
        self.cache = os.path.realpath(cache) if cache else None
        self.groups = groups
        self.build_dir = os.path.realpath(build_dir)
        self.staged = os.path.realpath(staged)
        self.work_root = os.path.realpath(work_root)
        self.private = [str(p) for p in private if p]

    def cache_env(self):
        """ccache's variables: its folder, and every path under the work folder hashed as a relative
        one, with no working directory in the hash (CCACHE_BASEDIR, CCACHE_NOHASHDIR): slots, and
        work folders, differ only in their paths, so a file that many students hand in compiles
        once, whichever slot builds it. Empty without a cache."""
        return {"CCACHE_DIR": self.cache, "CCACHE_BASEDIR": self.work_root, "CCACHE_NOHASHDIR": "1"} \
            if self.cache else {}

    def wrap(self, cmd):
        """cmd (ninja with its absolute path) as it runs in the sandbox; without one, as it is (given
        the compile cache's variables)."""
        cache = self.cache_env()
        if not self.sandbox.bwrap:
            return self.groups.wrap(["env", "-u", "CCACHE_DISABLE", *(f"{k}={v}" for k, v in cache.items()), *cmd]
                                    if cache else cmd)
        root = os.path.realpath(ROOT)
        args = [self.sandbox.bwrap, *system_view()]
        prefixes = toolkits(self.build_dir, [str(cmd[0])], [self.work_root])
        for prefix in prefixes:
            args += ["--ro-bind", prefix, prefix]
        args += ["--ro-bind", root, root]
        hidden = hidden_folders(root)
        for folder in hidden:
            args += ["--tmpfs", folder, "--remount-ro", folder]
        args += private_mounts(self.private, [root, *prefixes], hidden)
        args += ["--tmpfs", self.work_root, "--ro-bind", self.staged, self.staged,
                 "--bind", self.build_dir, self.build_dir,
                 *(["--bind", self.cache, self.cache] if self.cache else []),
                 "--clearenv", "--setenv", "PATH", tool_env().get("PATH", "/usr/bin:/bin"),
                 *(word for k, v in cache.items() for word in ("--setenv", k, v)),
                 "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", *READ_ONLY_LAST, "--chdir", self.build_dir]
        return self.groups.wrap(args + [str(c) for c in cmd])
