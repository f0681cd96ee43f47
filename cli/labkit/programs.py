"""A lab's two programs: building them, and asking the grader what a lab has.

The grader is kit code and is always the one of the build labkit was pointed at; the runner is
whichever code base is graded (labs/, solutions/, or a submission built apart)."""

import functools
import os
import re
import shutil
import stat
from pathlib import Path

from .build import BuildInfo, make
from .proc import capture
from .util import ANSI_RE, ROOT, LabkitError, first_errors, rel, say

PROBE_TIMEOUT_S = 60  # the kit's device probe: a driver that hangs must not hang labkit

PYTHON_VENV = ROOT / ".venv-python" / "bin" / "python3"  # ./labkit setup --python makes it
SYSTEM_PYTHON = Path("/usr/bin/python3")  # readable by the sandbox user, unlike a python under /root


def open_to_others(path):
    """Whether the sandbox's unprivileged user can run path: every folder above it searchable by
    others (a Python under /root/.pyenv is not)."""
    real = Path(os.path.realpath(path))
    return all(p.stat().st_mode & stat.S_IXOTH for p in [real, *real.parents])


def python_interpreter():
    """The Python track's interpreter: $LABKIT_PYTHON when set (empty or "none": no Python track),
    else the kit's .venv-python (./labkit setup --python), else python3 from PATH when the sandbox
    user can run it, else the system's (whose rows then say what is missing)."""
    chosen = os.environ.get("LABKIT_PYTHON")
    if chosen is not None:
        return "" if chosen.strip().lower() in ("", "none") else chosen
    if PYTHON_VENV.exists():
        return str(PYTHON_VENV)
    on_path = shutil.which("python3")
    if on_path and open_to_others(on_path):
        return on_path
    return str(SYSTEM_PYTHON) if SYSTEM_PYTHON.exists() else (on_path or "")


def python_options(runner):
    """--python and --python-code for the code base `runner` was built from, as its build's
    labkit-build.json says (never as anything the runner prints); [] without a Python track."""
    interpreter = python_interpreter()
    runner = Path(runner)
    if not interpreter:
        return []
    try:
        info = BuildInfo.read(runner.parent.parent)  # <build>/labs/<lab>_runner
    except LabkitError:
        return []
    for lab in info.labs:
        if runner.name in (Path(lab.runner).name, Path(lab.solution_runner or "-").name):
            code = lab.python_code_for(runner)
            return ["--python", interpreter, "--python-code", code] if code else []
    return []


def runner_options(grader, runner, sandbox):
    """What every grader command that drives a runner gets: the runner, its sandbox, its Python track."""
    return ["--runner", runner, *sandbox_option(grader, sandbox), *python_options(runner)]

QUERY_TIMEOUT_S = 60
_DEVICES = {}  # machine_device's answers, by build folder


def build_grader(build, lab):
    """Builds the grader of lab (a build.Lab) in build; a kit that does not compile is not the
    student's doing, so it stops labkit."""
    path, err = make(build.dir, lab.grader)
    if path is not None and build.probe:  # the grader runs it to learn what GPU there is
        probe, err = make(build.dir, build.probe)
        path = path if probe is not None else None
    if path is None:
        say(first_errors(err))
        raise LabkitError(f"could not build the {lab.name} grader, {lab.grader} (see above; "
                          "it is kit code: no student file is to blame)")
    return path


def runner_target(lab, solution):
    if not solution:
        return lab.runner
    if not lab.solution_runner:
        raise LabkitError(f"no reference build of {lab.name} (solutions/ absent, or "
                          "-Dsolutions=disabled)")
    return lab.solution_runner


def runner_targets(lab, emulate=False):
    """(student runner, solution runner) targets of lab (a build.Lab), the solution's "" when it
    is not built; with emulate, the emulated runners (their GPU variants on the CPU: emulate/),
    built only when asked for (about a minute of compile per lab)."""
    if not emulate:
        return lab.runner, lab.solution_runner
    if not lab.emulated_runner:
        raise LabkitError(f"--emulate: this build has no emulated runner of {lab.name} (emulate/meson.build "
                          "lists the labs it covers; ./labkit build updates an older build folder)")
    return lab.emulated_runner, lab.solution_emulated_runner


def cannot_emulate(build_log):
    """What a failed emulated build says a student's files use that the CPU build lacks, for
    'not run: cannot be emulated (uses ...)': an undeclared name (an intrinsic the shim does not
    map), inline PTX (which the CPU's assembler rejects), else the compiler's first error."""
    text = ANSI_RE.sub("", build_log)
    name = re.search(r"[‘'`](\w+)[’'`] (?:was not declared|is not a member|has not been declared)", text)
    if name:
        return f"uses {name.group(1)}"
    if re.search(r"no such instruction|unknown mnemonic|invalid instruction suffix", text):
        return "uses inline PTX (asm)"
    first = first_errors(build_log, 1).strip()
    return f"the CPU build fails: {first[:160]}" if first else "the CPU build fails"


def lab_programs(build, lab_name, solution=False):
    """(grader, runner) of lab_name in build, both built; the reference's runner with solution.
    For the commands that need both or nothing (run, list, --sanitize)."""
    lab = build.lab(lab_name)
    grader = build_grader(build, lab)
    target = runner_target(lab, solution)
    runner, err = make(build.dir, target)
    if runner is None:
        say(first_errors(err))
        raise LabkitError(f"could not build {target}")
    return grader, runner


def query(grader, *args):
    """Output lines of `<grader> list --runner R` or `<grader> list-files`."""
    rc, out, timed_out = capture([grader, *args], timeout=QUERY_TIMEOUT_S)
    if rc != 0 or timed_out:
        if out.strip():  # its own words first, so that the error itself stays one line
            say("\n".join("  " + l for l in out.strip().splitlines()[-20:]))
        why = f"timed out after {QUERY_TIMEOUT_S} s" if timed_out else f"exit {rc}"
        shown = " ".join(rel(a) if isinstance(a, Path) else str(a) for a in args)
        raise LabkitError(f"{rel(grader)} {shown} failed ({why})")
    return [l for l in out.splitlines() if l.strip()]


@functools.lru_cache(maxsize=None)
def knows_sandbox(grader):
    """Whether the grader takes --sandbox (asked once per run): a grader built before it had the
    option refuses it, and must still grade (unsandboxed, and its reports say so)."""
    try:
        rc, out, _ = capture([grader, "grade", "--help"], timeout=QUERY_TIMEOUT_S)
    except LabkitError:
        return False
    return rc == 0 and "--sandbox" in out


def sandbox_option(grader, sandbox):
    """The --sandbox option of every `<grader> grade|run|list` (bwrap's path, or off), or
    nothing for a grader that does not know it."""
    return ["--sandbox", sandbox.grader_value] if knows_sandbox(grader) else []


def runner_sandbox(grader, sandbox):
    """What the runners of grader run in, as the reports say it."""
    if not knows_sandbox(grader):
        return f"not sandboxed: {rel(grader)} has no --sandbox option (rebuild it)"
    return sandbox.label


def list_variants(grader, runner, sandbox):
    """[{name, kind, summary, exercise, reference, peer}] in the grader's order (the runner answers
    `list` in sandbox). The grader prints name, kind, summary, exercise and "reference",
    "student" or "peer"."""
    rows = []
    for line in query(grader, "list", *runner_options(grader, runner, sandbox)):
        parts = line.split("\t")
        rows.append({"name": parts[0].strip(), "kind": parts[1].strip() if len(parts) > 1 else "",
                     "summary": parts[2].strip() if len(parts) > 2 else "",
                     "exercise": parts[3].strip() if len(parts) > 3 else "",
                     "reference": len(parts) > 4 and parts[4].strip() == "reference",
                     # a peer (NPP, CUB, ...) is the kit's, in its reference runner alone
                     "peer": len(parts) > 4 and parts[4].strip() == "peer"})
    return rows


def student_files(grader, lab_name):
    """The student-editable files of a lab, from its grader (no fallback: guessing them from
    meson.build is what labkit-build.json replaced)."""
    try:
        files = query(grader, "list-files")
    except LabkitError as e:
        raise LabkitError(f"cannot ask the {lab_name} grader for the student files: {e}") from None
    if not files:
        raise LabkitError(f"the {lab_name} grader lists no student files ({rel(grader)} list-files)")
    return [f.strip() for f in files]


def no_gpu_reason(build):
    """"" when this machine has a CUDA device, else why not, in the probe's words ("no CUDA
    device", a driver's error), asked of the first lab's grader (`<grader> device`)."""
    if not build.labs:
        return ""
    rc, out, _ = capture([build_grader(build, build.labs[0]), "device"], timeout=PROBE_TIMEOUT_S)
    return "" if rc == 0 else (out.strip().split("\t", 1)[-1] or "no CUDA device")


def machine_device(main):
    """What the kit's probe says of this machine's CUDA device: its "device" fields (available,
    reason, name, sms, cc_major, cc_minor, memory_gib, driver, runtime), {} when the build has no
    CUDA or no probe. Asked once per build folder and process."""
    if not main.cuda or not main.probe:
        return {}
    known = _DEVICES.get(str(main.dir))
    if known is not None:
        return known
    probe, _ = make(main.dir, main.probe)
    if probe is None:
        return {}
    # The probe answers on fd 3 (the grader's report pipe): here, onto the captured stdout.
    _, text, _ = capture(["bash", "-c", 'exec "$0" 3>&1 >/dev/null 2>&1', str(probe)], timeout=PROBE_TIMEOUT_S)
    device = dict(l.split("\t")[1:3] for l in text.splitlines() if l.startswith("device\t") and l.count("\t") >= 2)
    _DEVICES[str(main.dir)] = device
    return device


def machine_gpu(main):
    """The name of this machine's CUDA device ("" without one), from the kit's probe; it decides
    which groups are graded here, the same for every submission."""
    device = machine_device(main)
    return device.get("name", "") if device.get("available") == "1" else ""
