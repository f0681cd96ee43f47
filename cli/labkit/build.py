"""Meson and ninja: configuring a build folder, building targets, and what a build says about
itself: <build_dir>/labkit-build.json names the labs and their programs, meson-info/ holds the
options it was configured with."""

import json
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .confine import groups as confine_groups
from .proc import capture
from .util import LabkitError, first_errors, kit_path, rel, say, show_cmd

BUILD_TIMEOUT_S = 1800  # one build of the kit's own code
BUILD_INFO = "labkit-build.json"
# A submission's compile: its student files, every graded lab together, the kit's own objects not
# counted (--compile-timeout). About 25 files at 3 s each through nvcc on one core is the
# slowest honest hand-in; a file that stalls its compiler (constexpr loops) stops the class run
# for no longer than this.
COMPILE_TIMEOUT_S = 300
# GCC's limit on the operations of one constexpr evaluation in a submission's build (its default
# is 2**25, about 3 s of compile each; the labs' code needs a small fraction of 2**22). nvcc's
# own front end stops far earlier by itself; its host compiler gets the same limit.
CONSTEXPR_OPS_LIMIT = 1 << 22


def build_dir_of(args):
    """--build-dir, relative to the kit's root."""
    return kit_path(args.build_dir)


def is_configured(build_dir):
    return (Path(build_dir) / "meson-private" / "coredata.dat").is_file() and \
        (Path(build_dir) / "build.ninja").is_file()


def configure(build_dir, meson_args=(), echo=True):
    """meson setup (or --reconfigure). Returns (ok, output)."""
    if not shutil.which("meson"):
        raise LabkitError("meson is not installed: run ./labkit setup")
    cmd = ["meson", "setup"]
    if is_configured(build_dir):
        cmd.append("--reconfigure")
    cmd += [str(build_dir), *meson_args]
    show_cmd(cmd)
    rc, out, _ = capture(cmd, timeout=BUILD_TIMEOUT_S, echo=echo)
    return rc == 0, out


def ensure_configured(build_dir):
    if not is_configured(build_dir):
        ok, _ = configure(build_dir)
        if not ok:
            raise LabkitError(f"meson setup {rel(build_dir)} failed (see above); ./labkit setup "
                              "installs what is missing")


NINJA_STEP_RE = re.compile(r"^\[(\d+)/(\d+)\]\s+(.*)")
# The lines of ninja's own in its output: a step's status, a step that failed (its compiler's
# output follows), and ninja's summary. Each opens a section of what capture keeps (the first and
# last of each step's output: one file's flood of warnings never hides another's error).
NINJA_STATUS = re.compile(r"^\[\d+/\d+\] ")
NINJA_FAILED = re.compile(r"^FAILED: (?:\[code=\d+\] )?(.+)$")
NINJA_SUMMARY = "ninja:"
NINJA_SECTIONS = r"^(?:\[\d+/\d+\] |FAILED: |ninja: )"
PROGRESS_STEPS = 10  # plain progress lines per build, when the output is not a terminal


class BuildProgress:
    """ninja's "[12/95] Compiling ..." lines as one line updated in place on a terminal, or a
    plain line every tenth of the build when piped, so a long first build is never silent."""

    def __init__(self, what):
        self.what = what
        self.tty = sys.stdout.isatty()
        self.shown = 0  # tenths already printed (piped)
        self.width = 0

    def __call__(self, line):
        m = NINJA_STEP_RE.match(line)
        if not m:
            return
        done, total, step = int(m.group(1)), int(m.group(2)), m.group(3).strip()
        if self.tty:
            text = f"building {self.what} [{done}/{total}] {step}"[:shutil.get_terminal_size().columns - 1]
            sys.stdout.write("\r" + text.ljust(self.width))
            self.width = len(text)
            sys.stdout.flush()
        elif done * PROGRESS_STEPS >= (self.shown + 1) * total or done == total:
            self.shown = done * PROGRESS_STEPS // total
            say(f"building {self.what}: {done}/{total}")

    def done(self):
        if self.tty and self.width:
            sys.stdout.write("\r" + " " * self.width + "\r")
            sys.stdout.flush()


BACKGROUND_NICENESS = 19  # the lowest priority: the CPU scheduler gives it what others leave


def ninja(build_dir, targets=(), echo=True, jobs=None, confine=None, keep_going=False, progress=True,
          timeout=BUILD_TIMEOUT_S, background=False):
    """Builds targets (everything when empty). Returns (ok, output). With echo, ninja's output
    is shown as it comes; without, a progress line stands for it, or nothing without progress
    (builds running side by side, grade-all). confine (a sandbox.CompileSandbox), when given,
    runs ninja inside it: a submission's build. keep_going: build every target that can be
    built (ninja -k 0), so that the output names every one that cannot. timeout: seconds, after
    which ninja and its compilers are killed. background: at the lowest CPU priority (nice 19),
    beside a grading whose CPU times must not feel it (grade-all with timing)."""
    tool = shutil.which("ninja")
    if not tool:
        raise LabkitError("ninja is not installed: run ./labkit setup")
    cmd = [tool if confine else "ninja", "-C", str(build_dir)] + (["-j", str(jobs)] if jobs else [])
    cmd += (["-k", "0"] if keep_going else []) + list(targets)
    limits = None
    if confine:
        cmd, limits = confine.wrap(cmd), confine.limits
    if background:
        cmd = ["nice", "-n", str(BACKGROUND_NICENESS)] + cmd
    if echo:
        show_cmd(cmd)
        rc, out, timed_out = capture(cmd, timeout=timeout, echo=True, limits=limits, opens=NINJA_SECTIONS)
    elif progress:
        shown = BuildProgress(", ".join(Path(t).name for t in targets) or rel(build_dir))
        rc, out, timed_out = capture(cmd, timeout=timeout, on_line=shown, limits=limits, opens=NINJA_SECTIONS)
        shown.done()
    else:
        rc, out, timed_out = capture(cmd, timeout=timeout, limits=limits, opens=NINJA_SECTIONS)
    if timed_out:
        out += f"\nerror: build exceeded {timeout:g} s\n"
    return rc == 0, out


def build_targets(build_dir):
    """Output paths (relative to build_dir) of every target meson knows; empty when meson-info
    cannot be read."""
    info = Path(build_dir) / "meson-info" / "intro-targets.json"
    try:
        targets = json.loads(info.read_text())
    except (OSError, ValueError):
        return set()
    out = set()
    base = Path(build_dir).resolve()
    for t in targets if isinstance(targets, list) else []:
        for f in t.get("filename", []) if isinstance(t, dict) else []:
            try:
                out.add(str(Path(f).resolve().relative_to(base)))
            except ValueError:
                pass
    return out


def build_option(build_dir, name):
    info = Path(build_dir) / "meson-info" / "intro-buildoptions.json"
    try:
        for opt in json.loads(info.read_text()):
            if opt.get("name") == name:
                return opt.get("value")
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    return None


def configured_with(build_dir, options):
    """Whether build_dir is a configured build with exactly these -D options' values."""
    if not is_configured(build_dir):
        return False
    for opt in options:
        name, _, value = opt[2:].partition("=")
        have = build_option(build_dir, name)
        if isinstance(have, list):
            have = ",".join(have)
        if str(have).lower() != value.lower():
            return False
    return True


def submission_options(build_dir):
    """-D options of a submission's build beside build_dir: what it must share with build_dir
    (the CUDA choice, the GPU architecture, where pkg-config finds the libraries) and the
    constexpr limit of every C++ and CUDA host compile (CONSTEXPR_OPS_LIMIT)."""
    out = [f"-D{n}={v}" for n in ("cuda", "gpu_arch")
           if (v := build_option(build_dir, n)) is not None]
    pcp = build_option(build_dir, "pkg_config_path")
    if pcp:
        out.append("-Dpkg_config_path=" + ",".join(pcp))
    limit = f"-fconstexpr-ops-limit={CONSTEXPR_OPS_LIMIT}"
    out.append(f"-Dcpp_args={limit}")
    if build_option(build_dir, "cuda_args") is not None:  # CUDA is a language of this build
        out.append(f"-Dcuda_args=-Xcompiler={limit}")
    return out


class CompileBudget:
    """The wall time one submission's compile may take, every ninja call of it together
    (--compile-timeout, else COMPILE_TIMEOUT_S)."""

    def __init__(self, seconds=None):
        self.seconds = seconds or COMPILE_TIMEOUT_S
        self.deadline = time.monotonic() + self.seconds

    def left(self):
        return max(0.0, self.deadline - time.monotonic())

    def spent(self):
        return self.left() <= 0

    def why(self):
        return (f"compiling took more than {self.seconds:g} s, the limit of a submission's compile "
                f"(--compile-timeout): stopped")


def student_objects(build_dir, folder):
    """{object target: file name} of the sources in folder (a submission's staged lab), from
    build_dir's compile_commands.json."""
    try:
        commands = json.loads((Path(build_dir) / "compile_commands.json").read_text())
    except (OSError, ValueError):
        return {}
    base = Path(folder).resolve()
    out = {}
    for c in commands if isinstance(commands, list) else []:
        src = (Path(c.get("directory", build_dir)) / c.get("file", "")).resolve()
        if src.parent == base and c.get("output"):
            out[c["output"]] = src.name
    return out


def kit_inputs(build_dir, target, objects):
    """What target needs that is the kit's own code: every input ninja lists for it (its
    objects and libraries) but the student objects and the library they make (objects, from
    student_objects). Built before a submission's compile is timed."""
    rc, out, _ = capture(["ninja", "-C", str(build_dir), "-t", "query", target], timeout=60)
    if rc != 0:
        return []
    student = set(objects) | {o.split(".p/")[0] for o in objects}
    inputs = [l.strip().lstrip("|").strip() for l in out.split("outputs:")[0].splitlines()[2:]]
    return [i for i in inputs if i and i not in student]


def up_to_date(build_dir, targets):
    """Whether ninja has nothing to do for targets (and build.ninja) in build_dir: asked, not
    built (ninja -n)."""
    rc, out, _ = capture(["ninja", "-C", str(build_dir), "-n", "build.ninja", *targets], timeout=120)
    return rc == 0 and "no work to do" in out


def make(build_dir, target, echo=False, confine=None, timeout=BUILD_TIMEOUT_S):
    """Builds one target (a path relative to build_dir), inside confine when given, within
    timeout seconds (see ninja). Returns (its path or None, error text)."""
    known = build_targets(build_dir)
    if known and target not in known:  # ninja's own "unknown target" line says less
        return None, f"{target}: no such target in {rel(build_dir)}"
    ok, out = ninja(build_dir, [target], echo=echo, confine=confine, timeout=timeout)
    if not ok:
        return None, out
    path = Path(build_dir) / target
    if not path.is_file():
        return None, f"{target}: ninja succeeded but {rel(path)} is not there"
    return path, ""


# ---- labkit-build.json -------------------------------------------------------------------------

@dataclass(frozen=True)
class Lab:
    """One lab's programs, as ninja target paths relative to the build folder."""
    name: str
    grader: str
    runner: str
    solution_runner: str  # "" when the reference is not built
    python_code: str = ""  # the Python track's files of the student code base (absolute)
    solution_python_code: str = ""
    emulated_runner: str = ""  # its GPU variants on the CPU (grade --emulate); "" where not built
    solution_emulated_runner: str = ""

    def python_code_for(self, runner):
        """The Python files of the code base `runner` (a path in this build) was built from."""
        return self.solution_python_code if Path(runner).name == Path(self.solution_runner).name else self.python_code


class BuildInfo:
    """What <build_dir>/labkit-build.json says: the labs in teaching order and their programs."""

    def __init__(self, build_dir, labs, cuda, probe="", confine="", grading=""):
        self.dir = Path(build_dir)
        self.labs = labs
        self.cuda = cuda  # True, False, or None when the file does not say
        self.probe = probe  # the device probe every grader runs ("" in an older build description)
        self.confine = confine  # labkit-confine, the control groups of compiles (confine.py); "" when older
        self.grading = grading  # the ninja target of every program grading runs (./labkit build); "" when older

    @classmethod
    def read(cls, build_dir):
        path = Path(build_dir) / BUILD_INFO
        if not path.is_file():
            raise LabkitError(f"{rel(path)} is missing: {rel(build_dir)} was configured by an older "
                              f"kit or is not a labkit build; reconfigure it (./labkit setup "
                              f"--build-dir {rel(build_dir)})")
        try:
            data = json.loads(path.read_text())
            labs = [Lab(name=str(l["name"]), grader=str(l["grader"]), runner=str(l["runner"]),
                        solution_runner=str(l.get("solution_runner") or ""),
                        python_code=str(l.get("python_code") or ""),
                        solution_python_code=str(l.get("solution_python_code") or ""),
                        emulated_runner=str(l.get("emulated_runner") or ""),
                        solution_emulated_runner=str(l.get("solution_emulated_runner") or ""))
                    for l in data["labs"]]
            cuda = data.get("cuda")
            probe = str(data.get("probe") or "")
            confine = str(data.get("confine") or "")
            grading = str(data.get("grading") or "")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise LabkitError(f"{rel(path)} cannot be read ({e.__class__.__name__}: {e}); "
                              "reconfigure the build") from None
        return cls(build_dir, labs, cuda, probe, confine, grading)

    def names(self):
        return [l.name for l in self.labs]

    def groups(self):
        """The control groups of this machine, through this build's labkit-confine (built first
        when it is not yet; confine.py)."""
        program = make(self.dir, self.confine)[0] if self.confine else None
        return confine_groups(str(program) if program else "")

    def lab(self, name):
        for l in self.labs:
            if l.name == name:
                return l
        raise LabkitError(f"unknown lab {name} (labs: {', '.join(self.names())})")

    def select(self, names):
        """The labs named (all when none), checked against this build."""
        if not names:
            return self.names()
        unknown = [n for n in names if n not in self.names()]
        if unknown:
            raise LabkitError(f"unknown lab {', '.join(unknown)} (labs: {', '.join(self.names())})")
        return list(names)


def open_build(build_dir):
    """Configures build_dir when needed, brings it up to date with the meson.build files, and
    returns what its labkit-build.json says."""
    ensure_configured(build_dir)
    # labkit-build.json is written when meson (re)configures. Any ninja call would regenerate
    # it after a meson.build changed, but we read it before building anything: regenerate first.
    ok, out = ninja(build_dir, ["build.ninja"], echo=False)
    if not ok:
        say(first_errors(out))
        raise LabkitError(f"meson could not bring {rel(build_dir)} up to date (see above); "
                          "./labkit setup reconfigures it")
    return BuildInfo.read(build_dir)
