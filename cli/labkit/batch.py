"""`labkit grade-all SUBMISSIONS_DIR`: a whole class, scored by the labs' rubrics, fast enough to
re-run the night before grades are due, and resumable. `--single PATH` (repeatable) grades the
submissions named instead, each one's table printed: `grade LAB --submission PATH ...` is that
(cli.as_grade_all), so every submission is graded here.

The pipeline: --jobs build slots compile submissions on the CPU cores (each slot is a configured
build of its own, kept between runs; a new one starts as a copy of the first, so the kit's
objects compile once per run, and a submission recompiles only its own files) while the GPU
grades the ones already built, up to --jobs at once. With timing on, each lab of a submission is
graded in two runs: a check (--no-perf), side by side with other submissions' checks and
sanitizer runs, then a timing of the variants that passed (--no-check), alone: no check, no
sanitizer and no other timing runs meanwhile (quiet.Turns), so no two timings share the GPU. The
gradings and the builds run on cores of their own, whole physical cores each (quiet.py), the
builds also at the lowest CPU priority (nice 19): the timing, and the reference's timing before
the class, have their cores to themselves, and CPU times are compared with the reference's in
each run's machine speed (rubric.py).

Build isolation: each student file compiles on its own (ninja -k 0 over the files' objects). A
file that does not compile is replaced by the starter's, so everything else still links and is
graded; the variants that reach the replaced file throw the starter's NotImplemented, which
names its file, and become build-error with that file's compiler message.

Compile cache: where ccache is installed, meson compiles every slot's files through it, and the
slots of a work folder share one cache (compile_cache): a file that many students hand in
unchanged (a starter's step not done yet, the kit's own objects of a new slot) compiles once, and
a rerun of the class compiles only what changed.

Results: <out>/results/<name>.json, one per submission, each written whole (write_atomic) and
keyed by the submission's files and the grading options: a run that is interrupted resumes where
it stopped (--force regrades). The gradebook and the other class files (the gradebook package) are rebuilt
from the result files, also while a Slurm job array is still writing them; a run removes those
made from the results it is about to change first, so that one cut short leaves none stale."""

import concurrent.futures as futures
import fcntl
import hashlib
import json
import os
import queue
import re
import secrets
import shutil
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from . import grader_cli, reports, rubric
from .build import (BUILD_TIMEOUT_S, NINJA_FAILED, NINJA_STATUS, NINJA_SUMMARY, BuildInfo, CompileBudget, build_dir_of,
                    configure, configured_with, is_configured, kit_inputs, make, ninja, open_build, student_objects,
                    submission_options, up_to_date)
from .gradebook import (COLLIDES, VARIANT_COLUMNS, class_rows, drop_class_outputs, load_results, naming_notes,
                        read_roster, staging_exceptions, variant_rows, write_class_outputs)
from .grading import run_grader, validate_options, with_options
from .proc import kill_all, tool_env
from .quiet import Turns, pin, pinned, split_cores
from .programs import build_grader, list_variants, machine_gpu, runner_sandbox, student_files
from .sandbox import CompileSandbox, choose
from .sanitize import NO_GPU_TO_SANITIZE, find_sanitizer, gpu_variants, ran_to_the_end, rubric_view, run_sanitized
from .submissions import (ARCHIVES, NOTHING_HANDED_IN, shown_name, source_key, stage,
                          submission_names, write_if_changed)
from .util import (RESULTS, ROOT, LabkitError, UsageError, default_work_dir, error_kind, first_errors, inside,
                   kit_path, print_table, printable, rel, say, write_atomic)
from .verdicts import BUILD_ERROR, ERROR, PASS, TODO

SCHEMA = "labkit-result/1"
TIMING_LABEL = "-timing"  # a lab's timing run's files beside its check run's: <lab>-<name>-timing.json
SEED_RANGE = 1000000007  # the grader's own default seeds are below this too
# The starter's NotImplemented names its file: "not implemented: scan_rows_naive (01_naive.cu)".
NOT_IMPLEMENTED_FILE = re.compile(r"\(([^()\s]+\.(?:cu|cpp|cc|cxx|c))\)")


def default_jobs():
    """Build slots (and parallel correctness gradings): a quarter of the cores, each slot's
    compile using the other three quarters' share, at least 1 and at most 8."""
    return max(1, min(8, cpus() // 4))


def cpus():
    """The cores this process may use (a Slurm task's allocation, not the whole node)."""
    return len(os.sched_getaffinity(0)) or 1


def out_dir_of(args):
    """--out (relative to the kit's root), else results/class: never a folder that holds the kit,
    which the compile sandbox could not hide without hiding the kit."""
    out = kit_path(args.out) if args.out else RESULTS / "class"
    if inside(ROOT, out):
        raise UsageError(f"--out {args.out} holds the kit ({ROOT}); choose a folder inside or beside it")
    return out


def work_dir_of(args):
    """--work-dir (relative to the kit's root, like every path option), else the default cache
    folder; made when missing. Never inside the kit, where a staged file could #include the
    reference by a relative path, nor a folder that holds the kit, where a submission's folder
    could land on a kit folder."""
    work = kit_path(args.work_dir) if args.work_dir else default_work_dir()
    shown = args.work_dir or str(work)
    if inside(work, ROOT):
        raise UsageError(f"--work-dir {shown} is inside the kit ({ROOT}): a submission staged there "
                         "could reach solutions/ by a relative #include; choose a folder outside it")
    if inside(ROOT, work):
        raise UsageError(f"--work-dir {shown} holds the kit ({ROOT}); choose a folder beside it")
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--work-dir {shown}: cannot make it ({e.strerror})") from None
    return Path(os.path.realpath(work))


def find_submissions(args):
    """[(name, path)]: the --single submissions in the order given, else every folder and archive
    directly in SUBMISSIONS_DIR, in name order; each one's name its own, unique and safe
    (submissions.submission_names)."""
    if args.single:
        paths = [Path(s).expanduser() for s in args.single]
        for given, path in zip(args.single, paths):
            if not path.exists():
                raise UsageError(f"submission {given}: no such file or folder")
    else:
        root = kit_path(args.submissions) if not Path(args.submissions).is_absolute() else Path(args.submissions)
        if not root.is_dir():
            raise UsageError(f"{args.submissions}: not a folder of submissions")
        paths = sorted(p for p in root.iterdir() if not p.name.startswith(".") and not p.is_symlink()
                       and (p.is_dir() or (p.is_file() and p.name.endswith(ARCHIVES))))
        if not paths:
            raise UsageError(f"{args.submissions}: no submission in it (folders, .zip, .tar.gz)")
    return list(zip(submission_names([p.resolve() for p in paths]), paths))


def options_key(args, labs):
    """The grading options that change a result, so that a result graded with others is regraded:
    the grader's options as handed on (grader_cli.forwarded: every one the grader defines, with no
    change here); the sanitizer, and the compile time limit, which labkit applies itself. Where
    the class's cases are kept (--cases-cache) changes nothing graded."""
    own = {k: getattr(args, k, None) for k in ("sanitize", "compile_timeout")}
    return hashlib.sha256(json.dumps([labs, grader_cli.forwarded(args), own], sort_keys=True,
                                     default=str).encode()).hexdigest()[:16]


def class_seed(path):
    """The seed of a class's random images, drawn by the class's first run and kept in path for
    every later one (a resumed run, the other Slurm tasks): every submission gets the same hidden
    cases, which are then built once. Only the instructor can read it (the cases folder is 0700)."""
    if not path.exists():
        # Written whole, then linked into place: a run racing this one reads its seed or ours,
        # never half of one.
        draft = path.with_name(f".{path.name}-{secrets.token_hex(8)}")
        draft.write_text(str(secrets.randbelow(SEED_RANGE)))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    try:
        return int(path.read_text().strip())
    except ValueError:
        raise LabkitError(f"{rel(path)} holds no seed: delete it, and the next run draws a new one "
                          "(the cases are then built again)") from None


def reference_variants(build, lab, grader, sandbox):
    """The kit's variant list of lab: the reference's when it is built here, else this
    checkout's labs/ runner's, else none. It names the rows of a stand-in report (a submission
    that does not compile) and sizes every grader process's wall-clock limit: never a
    submission's own list."""
    for target in (lab.solution_runner, lab.runner):
        if not target:
            continue
        runner, _ = make(build.dir, target)
        if runner is not None:
            try:
                return list_variants(grader, runner, sandbox)
            except LabkitError as e:
                say(f"warning: {e}")
    say(f"warning: no runner of {lab.name} builds here: a submission that does not compile gets "
        "one '*' row instead of one per variant")
    return []


LABKIT_ERROR_LOG = "labkit-error.log"  # in a submission's folder of the class: what labkit failed on


def labkit_failure(doing, e):
    """(one line, the whole traceback) of an exception labkit met while doing something to one
    submission: that submission's ERROR, never the class run's end."""
    short = printable(f"labkit failed on this submission while {doing} ({error_kind(e)}: "
                      f"{str(e).splitlines()[0][:160] if str(e).strip() else 'no message'}); "
                      f"{LABKIT_ERROR_LOG} in its class folder has the details")
    return short, printable("".join(traceback.format_exception(e))[-(64 << 10):])


def split_failures(log):
    """{object path: its compiler output} of every FAILED step of a `ninja -k 0` log."""
    out, current = {}, None
    for line in log.splitlines():
        m = NINJA_FAILED.match(line)
        if m:
            current = m.group(1).split()[0]
            out[current] = []
        elif current and (NINJA_STATUS.match(line) or line.startswith(NINJA_SUMMARY)):
            current = None
        elif current:
            out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


# ---- the compile cache ----------------------------------------------------------------------------

COMPILE_CACHE = "compile-cache"  # in the work folder: ccache's folder, shared by its slots
# Another folder for it, shared by every work folder: the kit's tests, whose class runs each have
# a work folder of their own and hand in the same files (`labkit test` sets it, outside the kit).
COMPILE_CACHE_ENV = "LABKIT_COMPILE_CACHE"
COMPILERS_CACHED_BY = "ccache"  # meson puts it in front of every compiler when it is on PATH


def compile_cache(work):
    """The ccache folder of the work folder's slots (made), or None where ccache is not installed.
    Each compile's sandbox binds it writable (sandbox.CompileSandbox): ccache names an entry by a
    hash of all its inputs (the source, every header, the compiler and its options), so a
    submission's compile can neither name another's entries nor be handed an object built from
    other sources."""
    if not shutil.which(COMPILERS_CACHED_BY, path=tool_env().get("PATH")):
        return None
    folder = Path(os.environ.get(COMPILE_CACHE_ENV) or Path(work) / COMPILE_CACHE)
    if inside(folder.resolve(), ROOT):  # the compile's sandbox hides parts of the kit
        raise UsageError(f"{COMPILE_CACHE_ENV}={folder}: a compile cache inside the kit ({ROOT}); choose a folder outside it")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# ---- build slots, and the one a Slurm job prepares for its tasks ---------------------------------

# The slot grade-all --slurm prepares for its tasks, in its work folder: as deep as a task's
# slots (<work>/slurm-task-<i>/slot-<j>), since a meson build folder names the kit's sources by
# relative paths, which a copy must keep.
PREPARED_SLOT = ("slurm-kit", "slot")


def slot_lock(slot, shared=False):
    """The slot's lock file, locked (close it to unlock; `with slot_lock(slot):`). Another
    grade-all on the same work folder (a second run, a Slurm task on the same node) must never
    build in a slot at the same time: it would grade one student's code under another's name.
    shared: a prepared slot being copied, which only its preparation must not change meanwhile."""
    slot.mkdir(parents=True, exist_ok=True)
    lock = open(slot / ".lock", "a")
    fcntl.flock(lock, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
    return lock


def slot_options(staged, forwarded):
    """The -D options of a build slot whose sources are staged in staged."""
    return [f"-Dsubmission={staged.resolve()}", "-Dsolutions=disabled"] + forwarded


def main_targets(main, labs):
    """What a class run needs of the main build: each lab's grader, starter runner (checks the
    options) and reference runner (the variant list, the reference timings), the device probe
    and labkit-confine (the control groups)."""
    out = [t for t in (main.probe, main.confine) if t]
    for name in labs:
        lab = main.lab(name)
        out += [lab.grader, lab.runner] + ([lab.solution_runner] if lab.solution_runner else [])
    return out


def prepare_tasks(args, work):
    """grade-all --slurm, before it submits the job: builds once what every task needs, so that
    no task builds the kit (nor builds in the shared build folder beside another task): the main
    build's targets (main_targets), and a build slot in work/slurm-kit/ holding the kit's own
    objects (with the starter's files), which each task copies into its new slots
    (--prebuilt-slot) and reconfigures for its own sources. Returns that slot."""
    main = open_build(build_dir_of(args))
    labs = main.select(args.labs)
    slot = Path(work).joinpath(*PREPARED_SLOT)
    say(f"building the kit once for every task: {rel(main.dir)}, and a build slot in {slot}")
    ok, out = ninja(main.dir, main_targets(main, labs), echo=False)
    if not ok:
        raise LabkitError(f"{rel(main.dir)} does not build (./labkit build shows why):\n{first_errors(out)}")
    prepare_slot(main, labs, slot)
    return slot


def prepare_slot(main, labs, slot, jobs=None, background=False, progress=True):
    """slot's build folder configured for the starters' files, with the labs' runners built: the
    kit's own objects compiled once, for every other slot to start from as a copy (copy_prepared)
    instead of compiling them again. jobs, background, progress: ninja's (a class run's build
    cores, beside the reference's timing, with no progress line among its output). Raises
    LabkitError when it does not build."""
    with slot_lock(slot):
        for name in main.names():
            for f in student_files(build_grader(main, main.lab(name)), name):
                write_if_changed(slot / "src" / name / f, (ROOT / "labs" / name / f).read_bytes())
        bdir, options = slot / "build", slot_options(slot / "src", submission_options(main.dir))
        if not configured_with(bdir, options):
            ok, out = configure(bdir, options, echo=False)
            if not ok:
                raise LabkitError(f"meson setup of the build slot {bdir} failed:\n{first_errors(out)}")
        prepared = BuildInfo.read(bdir)
        ok, out = ninja(bdir, [prepared.lab(name).runner for name in labs], echo=False, jobs=jobs,
                        background=background, progress=progress)
        if not ok:
            raise LabkitError(f"the build slot {bdir} does not build:\n{first_errors(out)}")


def built_for_tasks(args, labs):
    """A Slurm task's main build, which grade-all --slurm built before it submitted the job:
    read, never built (tasks run side by side, and ninja must never run twice in one folder);
    an error when ninja would have anything to do in it."""
    main = BuildInfo.read(build_dir_of(args))
    if not up_to_date(main.dir, main_targets(main, main.select(labs))):
        raise LabkitError(f"{rel(main.dir)} changed after grade-all --slurm built it for this job (ninja has work "
                          "to do there): the tasks never build it; submit the job again")
    return main


def copy_prepared(prepared, bdir):
    """A new slot's build folder as a copy of the prepared slot's (prepare_tasks), modification
    times kept, so that ninja finds the kit's objects up to date after the reconfigure; a copy
    that fails leaves no half folder (the slot is then configured and built from scratch)."""
    shutil.rmtree(bdir, ignore_errors=True)
    with slot_lock(prepared, shared=True):
        try:
            shutil.copytree(prepared / "build", bdir, symlinks=True)
        except (OSError, shutil.Error) as e:
            say(f"warning: cannot copy the prepared build slot {prepared} ({e}): building the kit in {bdir.parent}")
            shutil.rmtree(bdir, ignore_errors=True)


@dataclass
class Built:
    """A submission after its build: the runner of each lab (copied out of the slot), or why
    there is none, and the student files that did not compile (replaced by the starter's)."""
    name: str
    source: Path
    notes: list
    key: str
    started: float
    staged: Path = None                              # where its files were staged and compiled
    runners: dict = field(default_factory=dict)      # lab -> runner path
    lab_errors: dict = field(default_factory=dict)   # lab -> (short, full) why it has no runner
    file_errors: dict = field(default_factory=dict)  # lab -> {file: compiler output}
    build_s: float = 0.0
    folder: str = ""                                 # its folder's or archive's name, as handed in
    failed: tuple = None                             # (short, full): labkit failed on it, every lab ERROR
    spans: dict = field(default_factory=dict)        # SPANS: where its time went, in epoch seconds


# A result's "spans": {"build": [start, end], "<lab>": {"check": [start, end], "timing": [...],
# "sanitize": [...]}}, epoch seconds (time.time(), comparable across the run's threads and
# submissions), each taken while the phase held its turn on the GPU (not while it waited for one):
# what the rehearsal (rehearse.py) adds up into where a class's time went and how long the GPU
# sat idle.
SPANS = "spans"


@contextmanager
def span(spans, lab, phase):
    """Records [start, end] of one phase of one lab in spans, also when it fails."""
    entry = spans.setdefault(lab, {})[phase] = [time.time(), None]
    try:
        yield
    finally:
        entry[1] = time.time()


class Pipeline:
    def __init__(self, args, labs):
        self.args = args
        self.main = built_for_tasks(args, labs) if args.prebuilt_slot else open_build(build_dir_of(args))
        self.labs = self.main.select(labs)
        self.work = work_dir_of(args)
        self.out = out_dir_of(args)
        # Hidden from every compile wherever they are (sandbox.CompileSandbox): the class's
        # gradebook, feedback and cases, and the roster's names and emails.
        self.private = [self.out] + ([kit_path(args.roster)] if args.roster else [])
        self.results = self.out / "results"
        self.results.mkdir(parents=True, exist_ok=True)
        # Side by side only where each sandbox has limits of its own: with per-uid limits one
        # submission could take every process its classmates need (confine.py).
        self.groups = self.main.groups()
        if not self.groups.program:
            if (args.jobs or 1) > 1:
                raise UsageError(f"--jobs {args.jobs}: submissions are graded side by side only where each gets "
                                 f"control groups of its own, and here there are none ({self.groups.description}); "
                                 "use --jobs 1, or run as root")
            say(f"grade-all: one submission at a time: {self.groups.description}")
        self.jobs = args.jobs or (default_jobs() if self.groups.program else 1)
        self.forwarded = submission_options(self.main.dir)
        self.graders, self.lab_files, self.kit_variants, self.rubrics = {}, {}, {}, {}
        self.references, self.solution_runners = {}, {}
        self.stopping = False  # set when the run is interrupted: no result is written after it

    def prepare(self, sandbox):
        self.sandbox = sandbox
        self.timing = not self.args.no_perf
        for name in self.labs:
            lab = self.main.lab(name)
            self.graders[name] = build_grader(self.main, lab)
            self.lab_files[name] = student_files(self.graders[name], name)
            self.kit_variants[name] = reference_variants(self.main, lab, self.graders[name], sandbox)
            self.rubrics[name] = rubric.load(name, self.kit_variants[name], self.args.rubric_dir)
            for warning in ([f"variants no rubric group names (they score nothing): {', '.join(self.rubrics[name].unscored)}"]
                            if self.rubrics[name].unscored else []):
                say(f"{name}: {warning}")
            if lab.solution_runner and self.timing:  # built here: ninja runs in one thread only
                self.solution_runners[name] = make(self.main.dir, lab.solution_runner)[0]
            starter, _ = make(self.main.dir, lab.runner)
            if starter is not None:
                validate_options(self.graders[name], starter, self.args, sandbox)
        self.staged_files = dict(self.lab_files)
        for name in self.main.names():
            if name not in self.staged_files:
                self.staged_files[name] = student_files(build_grader(self.main, self.main.lab(name)), name)
        self.gpu = machine_gpu(self.main)
        self.sanitizer = find_sanitizer() if self.args.sanitize else None  # cmd_grade_all checked the GPU
        self.key = options_key(self.args, self.labs)
        # One set of cases for the whole class, built once per lab and kept private (below).
        cache = self.out / "cases"
        cache.mkdir(parents=True, exist_ok=True)
        cache.chmod(0o700)
        self.args.cases_cache = str(cache)
        if self.args.seed is None:
            self.args.seed = class_seed(cache / "seed")
        self.compile_cache = compile_cache(self.work)
        # With timing on, gradings and builds on cores of their own (quiet.py).
        self.cores = split_cores(getattr(self.args, "threads", None)) if self.timing else None
        if self.cores:
            say(f"grade-all: {self.cores.describe()}")
        self.slots = queue.Queue()
        for i in range(self.jobs):
            self.slots.put(self.work / f"slot-{i}")
        self.prepared = Path(self.args.prebuilt_slot) if self.args.prebuilt_slot else None
        self.turns = Turns()

    def share_kit_objects(self):
        """The kit's own objects compiled once per run, not once per slot: a new slot starts as a
        copy of the first, built first with the starters' files (prepare_slot). A slot kept from
        an earlier run is left as it is (its objects are up to date)."""
        if self.prepared or self.jobs < 2:
            return
        first, new = self.work / "slot-0", [self.work / f"slot-{i}" for i in range(1, self.jobs)]
        new = [slot for slot in new if not is_configured(slot / "build")]
        if not new:
            return
        say(f"grade-all: building the kit's own objects once, in {first}, for {len(new)} more build slot(s)")
        try:
            prepare_slot(self.main, self.labs, first, jobs=cpus(), background=self.timing,
                         progress=False)
        except LabkitError as e:  # each slot then builds them itself, and says why it fails
            say(f"warning: {e}")
            return
        for slot in new:
            copy_prepared(first, slot / "build")

    # ---- the reference, timed once ------------------------------------------------------------

    def grade_references(self):
        """With timing on, the reference solution of each lab graded once and kept in
        <out>/reference/ (reused by a later run or a Slurm task with the same options)."""
        if not self.timing:
            return
        for lab in self.labs:
            if self.stopping:  # interrupted: time nothing more, and keep nothing of it
                return
            cached = self.out / "reference" / f"{lab}.json"
            try:
                got = json.loads(cached.read_text())
                if got.get("_key") == self.key and not self.args.force:
                    self.references[lab] = got
                    continue
            except (OSError, ValueError):
                pass
            runner = self.solution_runners.get(lab)
            if runner is None:
                say(f"{lab}: no reference solution built here: performance points are not graded")
                continue
            say(f"{lab}: timing the reference solution once, to score every submission's times against")
            with pinned(self.cores.timing):  # where the submissions are timed
                report = run_grader(self.graders[lab], runner, lab, "solution", self.out / "reference", self.args,
                                    self.kit_variants[lab], self.sandbox,
                                    log_path=self.out / "reference" / f"{lab}.log")
            if self.stopping:
                return
            why = reports.stand_in_reason(report)
            if why:  # kept for this run only: a later one times it again
                say(f"warning: {lab}: the reference solution's timing failed ({why}): performance points are "
                    "not graded")
            else:
                report["_key"] = self.key
                write_atomic(cached, json.dumps(report))
            self.references[lab] = report

    # ---- building ----------------------------------------------------------------------------

    def slot_build(self, slot, staged):
        """The slot's build folder, configured (once) for staged sources; a new one starts as a
        copy of the prepared slot (--prebuilt-slot). (BuildInfo or None, why not)."""
        bdir = slot / "build"
        options = slot_options(staged, self.forwarded)
        if not configured_with(bdir, options):
            if self.prepared and not is_configured(bdir):
                copy_prepared(self.prepared, bdir)
            ok, out = configure(bdir, options, echo=False)
            if not ok:
                return None, "meson setup failed:\n" + first_errors(out)
        try:
            return BuildInfo.read(bdir), ""
        except LabkitError as e:
            return None, str(e)

    def ninja(self, bdir, targets, confine, keep_going=False, timeout=BUILD_TIMEOUT_S):
        """A slot's build, quiet, on its share of the cores."""
        return ninja(bdir, targets, echo=False, jobs=max(1, cpus() // self.jobs), confine=confine,
                     keep_going=keep_going, progress=False, timeout=timeout, background=self.timing)

    shown = staticmethod(reports.without_base)

    def build_lab(self, built, lab, build, bdir, staged, confine, budget):
        """Builds the kit's own part of the lab's runner (untimed: it is the same for every
        submission), then, within the submission's compile budget, compiles the lab's student
        files one by one (ninja -k 0), replaces those that fail by the starter's, links the
        runner and copies it out of the slot. Past the budget the lab is build-error."""
        target = build.lab(lab).runner
        objects = student_objects(bdir, staged / lab)
        kit = kit_inputs(bdir, target, objects)
        ok, log = self.ninja(bdir, kit, confine) if kit else (True, "")
        if not ok:
            built.lab_errors[lab] = (first_errors(log, 6), log)
            return
        failures, log = {}, ""
        if objects and not budget.spent():
            ok, log = self.ninja(bdir, sorted(objects), confine, keep_going=True, timeout=budget.left())
            if not ok and not budget.spent():
                for obj, text in split_failures(log).items():
                    f = objects.get(obj)
                    if f:
                        failures[f] = text
                if not failures:  # failed, but not in a student file: the whole lab
                    built.lab_errors[lab] = (first_errors(log, 6), log)
                    return
        for f in failures:
            write_if_changed(staged / lab / f, (ROOT / "labs" / lab / f).read_bytes())
        built.file_errors[lab] = {f: self.shown(text, staged) for f, text in failures.items()}
        if not budget.spent():
            ok, log = self.ninja(bdir, [target], confine, timeout=budget.left())
        if budget.spent():
            built.lab_errors[lab] = (budget.why(), self.shown(log, staged) + "\n" + budget.why())
            return
        if not ok:
            log = self.shown(log, staged)
            built.lab_errors[lab] = (first_errors(log, 6), log)
            return
        dest = self.work / "runners" / built.name / Path(target).name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(bdir / target, dest)
        built.runners[lab] = dest

    def build(self, name, source, key, folder):
        """Stages and builds one submission. Whatever goes wrong in it stays with it: the
        exception becomes its `failed` note (every lab then ERROR), never the run's."""
        started = time.monotonic()
        built = Built(name, source, [], key, started, folder=folder)
        slot = self.slots.get()
        built.spans["build"] = [time.time(), None]  # from a free slot on: not the wait for one
        try:
            with slot_lock(slot):
                staged = slot / "src"
                built.notes = stage(source.resolve(), staged, self.staged_files, self.main.names(), self.lab_files)
                built.staged = staged
                build, why = self.slot_build(slot, staged)
                confine = CompileSandbox(self.sandbox, slot / "build", staged, self.work, self.private, self.groups,
                                         cache=self.compile_cache)
                budget = CompileBudget(self.args.compile_timeout)
                for lab in self.labs:
                    if build is None:
                        built.lab_errors[lab] = (why, why)
                    else:
                        self.build_lab(built, lab, build, slot / "build", staged, confine, budget)
        except Exception as e:  # noqa: BLE001 - see the docstring
            if self.stopping:
                raise
            built.failed = labkit_failure("staging or building it", e)
        finally:
            self.slots.put(slot)
        built.build_s = time.monotonic() - started
        built.spans["build"][1] = time.time()
        return built

    # ---- grading -----------------------------------------------------------------------------

    def mark_build_errors(self, report, failures):
        """Variants that reached a file that did not compile (the starter's NotImplemented names
        it) are build-error, with that file's compiler message."""
        changed = False
        for v in report.get("variants", []):
            if v.get("status") != TODO:
                continue
            named = NOT_IMPLEMENTED_FILE.findall(str(v.get("detail", "")))
            bad = [f for f in named if f in failures]
            if bad:
                v["status"] = BUILD_ERROR
                v["detail"] = f"{bad[0]} does not compile: " + first_errors(failures[bad[0]], 6)
                changed = True
        if changed:
            reports.write_back(report)

    def sanitize(self, built, lab, report, out_dir):
        """The GPU variants of the submission's runner that ran to their end in its grading
        (report), of --variants, checked again under compute-sanitizer (--sanitize), in the
        sandbox, on the quick sizes: what rubric.score_lab takes as sanitized=, with the report's
        path. None when the lab has no GPU variant this run asks for; a run that watched nothing
        says why (not_checked), and is never "clean"."""
        tool = self.args.sanitize
        if not gpu_variants(self.kit_variants[lab], self.args.variants):
            return None
        chosen = ran_to_the_end(report, self.args.variants)
        if not chosen:
            return rubric_view(tool, {}, "no GPU variant of this submission ran to its end")
        sanitized, watched, why = run_sanitized(self.graders[lab], built.runners[lab], lab, out_dir, self.args, chosen,
                                                self.sandbox, self.sanitizer, log_path=out_dir / f"{lab}-{tool}.log",
                                                echo=False)
        return dict(rubric_view(tool, watched, why), report=str(sanitized.get("_file", "")))

    def stand_in(self, built, lab, status, short, full, out_dir, log_name):
        """The report of a lab that has no grading of its own (it did not build, or labkit failed
        on it): every variant status, with short as its detail and full in out_dir/log_name."""
        write_atomic(out_dir / log_name, full)
        return dict(reports.placeholder(lab, built.name, self.kit_variants[lab], status, short),
                    sandbox=runner_sandbox(self.graders[lab], self.sandbox))

    def check_and_time(self, built, lab, out_dir):
        """The lab's report: with timing off, one grader run; with it on, a check run beside other
        submissions' checks, then a timing run of the variants that passed, alone on the GPU and
        the timing cores (Turns), its timings merged into the check's report. Each run's span is
        recorded while it holds its turn."""
        grader, runner, kit = self.graders[lab], built.runners[lab], self.kit_variants[lab]
        args = with_options(self.args, no_perf=True) if self.timing else self.args
        with self.turns.shared(), span(built.spans, lab, "check"):
            report = run_grader(grader, runner, lab, built.name, out_dir, args, kit, self.sandbox,
                                log_path=out_dir / f"{lab}.log", echo=False)
        # Every variant that passed is timed, also where its group scores no performance points:
        # the timing's own checks (a timed output that is wrong, work outside the timed region)
        # are part of the grade (tests/corpus/work_outside_timed_region).
        passed = [v["name"] for v in report.get("variants", []) if v.get("status") == PASS and not v.get("reference")]
        if not self.timing or not passed or reports.stand_in_reason(report):
            return report
        timing = with_options(self.args, variants=",".join(passed))
        with self.turns.alone(), span(built.spans, lab, "timing"):
            if self.stopping:  # interrupted while it waited for its turn: start nothing more
                raise LabkitError("stopped")
            timed = run_grader(grader, runner, lab, f"{built.name}{TIMING_LABEL}", out_dir, timing, kit, self.sandbox,
                               log_path=out_dir / f"{lab}{TIMING_LABEL}.log", echo=False, extra=["--no-check"])
        why = reports.stand_in_reason(timed)
        if why:  # the timing run failed
            report.setdefault("performance_problems", []).append(f"the timing run failed: {why}")
            return report
        return reports.merge_timing(report, timed)

    def grade_lab(self, built, lab, out_dir):
        """(state, detail, report) of one lab of a built submission."""
        if built.failed:
            short, full = built.failed
            return "error", short, self.stand_in(built, lab, ERROR, short, full, out_dir, LABKIT_ERROR_LOG)
        if lab in built.lab_errors:
            short, full = built.lab_errors[lab]
            return BUILD_ERROR, short, self.stand_in(built, lab, BUILD_ERROR, short, full, out_dir, f"{lab}-build.log")
        report = self.check_and_time(built, lab, out_dir)
        reports.unstage(report, built.staged)
        failures = built.file_errors.get(lab, {})
        if failures:
            write_atomic(out_dir / f"{lab}-build.log", "\n\n".join(f"== {f} ==\n{t}" for f, t in failures.items()))
            self.mark_build_errors(report, failures)
        reports.flag_fast_timings(report, self.references.get(lab))
        reports.write_back(report)  # what labkit added: the slot's path left out, flags
        error = [v for v in report["variants"] if v["name"] == "*"]
        if error:
            return "error", error[0].get("detail", ""), report
        return "graded", "; ".join(f"{f} does not compile (the starter's is used)" for f in failures), report

    def score(self, built, lab, state, detail, report, out_dir):
        """The lab's entry of the result: its report scored by the rubric (after the sanitizer's
        run, with --sanitize and a runner)."""
        sanitized = None
        if self.sanitizer and lab in built.runners:
            with self.turns.shared(), span(built.spans, lab, "sanitize"):
                sanitized = self.sanitize(built, lab, report, out_dir)
        scored = rubric.score_lab(self.rubrics[lab], report, self.references.get(lab), gpu=bool(self.gpu),
                                  timing=self.timing, sanitized=sanitized)
        entry = dict(scored, state=state, detail=detail, report=str(report.get("_file", "")))
        if sanitized:
            entry["sanitizer"] = sanitized
        return entry

    def grade(self, built):
        """Grades a built submission and writes its result. Whatever goes wrong in one lab stays
        with that lab (ERROR, the reason in its detail and labkit-error.log), and the other labs
        are graded; a result that cannot be written is said, and graded again by the next run."""
        out_dir = self.out / "submissions" / built.name
        out_dir.mkdir(parents=True, exist_ok=True)
        labs = {}
        for lab in self.labs:
            try:
                graded = self.grade_lab(built, lab, out_dir)
                labs[lab] = self.score(built, lab, *graded, out_dir)
            except Exception as e:  # noqa: BLE001 - see the docstring
                if self.stopping:
                    raise
                short, full = labkit_failure(f"grading {lab}", e)
                built.runners.pop(lab, None)  # no sanitizer run on it
                report = self.stand_in(built, lab, ERROR, short, full, out_dir, LABKIT_ERROR_LOG)
                labs[lab] = self.score(built, lab, "error", short, report, out_dir)
        result = {
            "schema": SCHEMA, "name": built.name, "folder": built.folder, "source": printable(built.source),
            "key": built.key, "options": self.key, "notes": built.notes,
            "graded_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "seconds": round(time.monotonic() - built.started, 2), "build_seconds": round(built.build_s, 2),
            "machine": {"gpu": self.gpu, "cpu_threads": cpus()},
            SPANS: built.spans,
            "sandbox": self.sandbox.label,
            "points": round(sum(l["points"] for l in labs.values()), 2),
            "max_points": round(sum(l["max_points"] for l in labs.values()), 2),
            "bonus_points": round(sum(l["bonus_points"] for l in labs.values()), 2),
            "max_bonus": round(sum(l["max_bonus"] for l in labs.values()), 2),
            "labs": labs,
        }
        if self.stopping:
            raise LabkitError("stopped")
        try:
            write_atomic(self.results / f"{built.name}.json", json.dumps(result, indent=2))
        except (OSError, ValueError) as e:
            say(f"warning: {built.name}: its result cannot be written ({e}): the next run grades it again")
        shutil.rmtree(self.work / "runners" / built.name, ignore_errors=True)
        return result

    # ---- the run -----------------------------------------------------------------------------

    def finished(self, name, key):
        """Whether <out>/results/<name>.json holds this submission, graded with these options."""
        try:
            got = json.loads((self.results / f"{name}.json").read_text())
        except (OSError, ValueError):
            return False
        return got.get("schema") == SCHEMA and got.get("key") == key and got.get("options") == self.key

    def after(self, before, job, *args):
        """job(*args) once the futures before are done; nothing new once the run is stopping."""
        for f in before:
            f.result()
        if self.stopping:
            raise LabkitError("stopped")
        return job(*args)

    def grade_after(self, references, build_future):
        return self.after([references, build_future], lambda: self.grade(build_future.result()))

    def run(self, todo):
        """Builds and grades todo ([(name, path, key, folder)]), showing progress and the time left.
        First the kit's own objects (share_kit_objects) on the build cores and the reference's
        timing (grade_references) on the timing cores, side by side, and the first submissions'
        builds as soon as the kit's objects are there: the GPU and the timing cores wait for no
        build, and the builds for no timing. Where the timing shares its cores with the builds (a
        machine too small to split), every build waits for the reference's timing, the kit's
        objects too. Returns the results."""
        if not todo:
            return []
        done, results, started = 0, [], time.monotonic()
        grade_workers = self.jobs  # side by side; each timing alone (check_and_time)
        side = (lambda cpus: dict(initializer=pin, initargs=(cpus,))) if self.cores else (lambda cpus: {})
        builders = futures.ThreadPoolExecutor(self.jobs, **side(self.cores and self.cores.building))
        graders = futures.ThreadPoolExecutor(grade_workers, **side(self.cores and self.cores.timing))
        try:
            # Each pool runs its first job first: no build or grading waits on a job queued behind it.
            references = graders.submit(self.grade_references)
            shared = [references] if self.cores and not self.cores.quiet else []
            kit = builders.submit(self.after, shared, self.share_kit_objects)
            grading = [graders.submit(self.grade_after, references,
                                      builders.submit(self.after, [kit], self.build, n, p, k, folder))
                       for n, p, k, folder in todo]
            for f in futures.as_completed(grading):
                result = f.result()
                done += 1
                results.append(result)
                elapsed = time.monotonic() - started
                left = (elapsed / done) * (len(todo) - done)
                lab_text = ", ".join(f"{lab} {l['points']:g}/{l['max_points']:g}"
                                     + ("" if l["state"] == "graded" else f" ({l['state']})")
                                     for lab, l in result["labs"].items())
                say(f"[{done}/{len(todo)}] {result['name']}: {lab_text}  ({result['seconds']:.1f} s; "
                    f"elapsed {elapsed:.0f} s, about {left:.0f} s left)")
                # A misfiled or damaged hand-in is common: say it now, not only in the class files.
                for note in staging_exceptions(result):
                    if NOTHING_HANDED_IN in note:
                        say(f"    warning: {result['name']}: {note.split(':', 1)[0]}: {NOTHING_HANDED_IN} "
                            f"(look at {result['source']})")
                    else:
                        say(f"    warning: {result['name']}: {note}")
        except BaseException:
            # Interrupted (Ctrl-C, kill) or failed: nothing more starts, what runs is killed, and
            # no result is written for a grading cut short (a later run grades it again).
            self.stopping = True
            for pool in (builders, graders):
                pool.shutdown(wait=False, cancel_futures=True)
            kill_all()
            raise
        finally:
            builders.shutdown()
            graders.shutdown()
        return results


def print_submission(result):
    """The terminal summary of one submission: per lab and variant, status, cases, points, time
    vs the reference and % of copy bandwidth."""
    print_table(VARIANT_COLUMNS, variant_rows(result))
    say(f"total: {result['points']:g}/{result['max_points']:g}"
        + (f" + bonus {result['bonus_points']:g}" if result["max_bonus"] else ""))


def print_class(results):
    """The terminal summary of a class: one row per submission."""
    header, rows = class_rows(results)
    print_table(header, rows)


def cmd_grade_all(args):
    if args.task_count is not None and not 0 <= (args.task_index or 0) < args.task_count:
        raise UsageError("--task-index must be in 0 .. --task-count - 1")
    paths = list(args.paths)
    if not args.single:
        if not paths:
            raise UsageError("name a folder of submissions (or --single PATH)")
        args.submissions = paths.pop(0)
    args.labs = paths
    roster = read_roster(kit_path(args.roster)) if args.roster else None
    subs = find_submissions(args)
    if args.slurm:
        if args.sanitize and "gpu" not in (args.gres or ""):
            raise UsageError("--sanitize on Slurm needs GPU nodes: add --gres gpu:1 (compute-sanitizer watches "
                             "kernels while they run)")
        from .slurm import cmd_slurm
        return cmd_slurm(args, [p for _, p in subs], prepare=lambda work: prepare_tasks(args, work))
    if args.sanitize and not machine_gpu(open_build(build_dir_of(args))):  # before anything is written
        raise UsageError(NO_GPU_TO_SANITIZE)
    pipe = Pipeline(args, args.labs)
    pipe.prepare(choose(args.no_sandbox))
    say(f"grade-all: {len(subs)} submission(s), labs {', '.join(pipe.labs)}; {pipe.jobs} build slot(s); "
        f"GPU: {pipe.gpu or 'none (GPU groups are not graded)'}; sandbox: {pipe.sandbox.label}; "
        f"results in {rel(pipe.results)}")
    if args.task_count:
        subs = [s for i, s in enumerate(subs) if i % args.task_count == (args.task_index or 0)]
    todo = []
    for name, path in subs:
        try:
            key = source_key(path)
        except OSError as e:  # staging says why, as that submission's note
            key = f"unreadable: {e.strerror}"
        if not args.force and pipe.finished(name, key):
            continue
        todo.append((name, path, key, shown_name(path.name)))
    if len(subs) > len(todo):
        say(f"{len(subs) - len(todo)} already graded with these options (kept; --force regrades)")
    if todo and not args.task_count:  # (a Slurm task's merge is `labkit gradebook`'s)
        drop_class_outputs(pipe.out, [name for name, *_ in todo])
    pipe.run(todo)
    if args.task_count:
        return 0
    everything = load_results(pipe.results)
    written = write_class_outputs(pipe.out, everything, roster)
    named = {name for name, _ in subs}
    if args.single:  # each one's table, graded now or kept
        for r in (r for name, _ in subs for r in everything if r["name"] == name):
            say(f"\n=== submission {r['name']} ({r['source']})")
            print_submission(r)
    else:
        print_class(everything)
    for name, notes in naming_notes(everything).items():
        for note in (n for n in notes if COLLIDES in n):
            say(f"note: {name}: {note}")
    say(f"class files: {rel(pipe.out / 'gradebook.csv')}, {rel(pipe.out / 'junit.xml')}, "
        f"{rel(pipe.out / 'summary.md')} (every submission per variant), "
        f"gradescope/ and feedback/ in {rel(pipe.out)} ({len(written)} files)")
    # The submissions asked for (with --single, those; else the whole class), results kept from
    # an earlier run included: a resumed run says the same.
    failing = any(l["points"] < l["max_points"] for r in everything if not args.single or r["name"] in named
                  for l in r["labs"].values())
    return 1 if failing else 0
