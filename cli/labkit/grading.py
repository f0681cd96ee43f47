"""`labkit grade`: running a lab's grader on a runner, and the default grading of this checkout
(your labs/ files beside the reference solution)."""

import argparse
import json
import os
import re
import runpy
import shlex
import shutil
import subprocess
import time
from pathlib import Path

from . import grader_cli, reference_cache, reports
from .build import build_dir_of, make, open_build
from .programs import build_grader, cannot_emulate, list_variants, machine_gpu, runner_options, runner_sandbox, runner_targets
from .proc import capture, execute
from .steps import first_configurations
from .util import RESULTS, ROOT, LabkitError, UsageError, first_errors, print_table, rel, say, show_cmd, write_atomic
from .verdicts import BUILD_ERROR, ERROR, TIMEOUT

# Per-variant timeout assumed when --timeout is not given, only to size the safety-net timeout
# of a whole grader process (the grader enforces its own per-variant limit).
ASSUMED_VARIANT_TIMEOUT_S = 120
# The most that safety net grows to by itself (--lab-timeout sets any other).
MAX_LAB_TIMEOUT_S = 6 * 3600
# grade --stage-dir DIR (what grade --slurm's job runs): what would go into results/ goes into
# DIR/results/, and DIR/finished.json is written last, once the grading has finished, saying its
# exit status and the reports (lab, label) it replaced: slurm_grade.py moves them into results/.
STAGED_RESULTS = "results"
FINISHED = "finished.json"
EMULATED_SIZES = "quick"  # the grader's --sizes of an emulated check (its quick list)
STARTER_GUARD = ROOT / "tests" / "starter_guard.py"


def grader_options(args):
    """What every `<grader> grade` of this labkit command is handed: the grader's own options as
    given (grader_cli.forwarded), then those labkit sets for the grader: --emulate (an emulated
    runner), --cases-cache (a class's cases, kept once) and --kept-timings (the kit's own rows'
    timings, kept once per machine and build: grade_lab)."""
    out = grader_cli.forwarded(args)
    if getattr(args, "emulate", False):
        out.append("--emulate")
    if getattr(args, "cases_cache", None):
        out += ["--cases-cache", str(args.cases_cache)]
    if getattr(args, "kept_timings", None):
        out += [reference_cache.KEPT_TIMINGS_OPTION, str(args.kept_timings)]
    return out


def with_options(args, **changes):
    """A copy of the parsed options with some changed: the grader options of a run that labkit
    makes besides the one asked for (a sanitizer's, a benchmark's)."""
    return argparse.Namespace(**{**vars(args), **changes})


def process_timeout(args, kit_variants):
    """Wall-clock limit of one grader process: a safety net above the grader's own per-variant
    limit, so that no submission can hang labkit. kit_variants: how many variants the kit has
    (the main build's reference or starter list), never what a submission's runner lists: one
    that printed 100,000 fake variants bought itself 139 days. Capped at MAX_LAB_TIMEOUT_S."""
    if args.lab_timeout:
        return args.lab_timeout
    per_variant = float(args.timeout) if getattr(args, "timeout", None) else ASSUMED_VARIANT_TIMEOUT_S
    return min(per_variant * (max(kit_variants, 1) + 1) + 60, MAX_LAB_TIMEOUT_S)


def read_report(path):
    """The grader's JSON report, invalid UTF-8 replaced and its shape checked (reports.load_json,
    reports.validate); raises ValueError saying what is wrong with it, OSError when it cannot be
    read."""
    return reports.validate(reports.load_json(path))


def run_grader(grader, runner, lab, label, out_dir, args, variants, sandbox, log_path=None, echo=True, extra=()):
    """Runs `<grader> grade --runner <runner>` (its runners in sandbox) and returns its JSON
    report, or a stand-in that says why there is none (status error). variants: the kit's
    variant list, which names the stand-in's rows and sizes the wall-clock limit. Writes
    <lab>-<label>.json/.md/.csv into out_dir and diff images under out_dir/diff/. echo: show
    the command (a class run, which shows one progress line per submission, does not). extra:
    more grader options (--sanitize)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"{lab}-{label}"
    json_path = stem.with_suffix(".json")
    for suffix in (".json", ".md", ".csv"):
        stem.with_suffix(suffix).unlink(missing_ok=True)
    diff_dir = out_dir / "diff" / f"{lab}-{label}"
    # Diff images of an earlier run would read as failures of this one.
    shutil.rmtree(diff_dir, ignore_errors=True)
    cmd = [grader, "grade", *runner_options(grader, runner, sandbox), "--label", label, "--json", json_path,
           "--markdown", stem.with_suffix(".md"), "--csv", stem.with_suffix(".csv"), "--diff-dir", diff_dir]
    cmd += grader_options(args) + list(extra)
    limit = process_timeout(args, len(variants))
    if echo:
        show_cmd(cmd)
    started = time.monotonic()
    if log_path:
        with open(log_path, "wb") as log:
            log.write(f"+ {shlex.join(map(str, cmd))}\n".encode())  # how to run it again
            log.flush()
            rc, timed_out = execute(cmd, timeout=limit, stdout=log, stderr=subprocess.STDOUT)
    else:
        rc, timed_out = execute(cmd, timeout=limit)
    elapsed = time.monotonic() - started
    where = runner_sandbox(grader, sandbox)
    stand_in = lambda status, detail: dict(reports.placeholder(lab, label, variants, status, detail),
                                           sandbox=where)
    if timed_out:
        return stand_in(TIMEOUT, f"the grader process ran past {limit:.0f} s and was killed")
    if rc == 2:
        return stand_in(ERROR, "usage error (exit 2): see the output above")
    try:
        report = read_report(json_path)
    except OSError as e:
        why = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
        return stand_in(ERROR, f"the grader process ended ({why}) after {elapsed:.1f} s without a "
                                 f"JSON report ({e.__class__.__name__})")
    except ValueError as e:
        return stand_in(ERROR, f"the grader's report {rel(json_path)} is malformed: {e}")
    report["_exit"], report["_file"] = rc, str(json_path)
    if "sandbox" not in report:  # a grader without --sandbox: its report says nothing of it
        report["sandbox"] = where
        reports.write_back(report)
    return report


def variants_or(grader, runner, fallback, sandbox):
    """The variants `grader list --runner runner` names, else fallback: a runner that cannot
    even list (a student's, crashing at start-up) still gets graded, and the grader says why."""
    try:
        return list_variants(grader, runner, sandbox)
    except LabkitError as e:
        say(f"warning: {e}")
        return fallback


def print_reference_log(lab, log):
    """The reference's full tables, without its progress lines."""
    say(f"\n=== {lab}: the reference solution (also in {rel(log)}) " + "=" * 10)
    for line in log.read_text(errors="replace").splitlines():
        if not re.match(r"(checking|timing) \[|preparing |\+ ", line):
            say(line)


def print_summary(lab, student, solution):
    say(f"\n--- {lab}: summary " + "-" * 40)
    reports.print_environment(student or solution)
    rows = reports.comparison_rows(student, solution)
    on = reports.timed_on(student or solution)
    if student and solution:
        print_table(["variant", "student", "solution", "size", f"student ms{on}", f"solution ms{on}",
                     "student/solution"], rows)
    else:  # one side only (no reference in the student tarball, or --solution)
        side = 1 if student else 2
        print_table(["variant", "status", "size", f"kernel ms{on}"],
                    [[r[0], r[side], r[3], r[3 + side]] for r in rows])
    if student:
        reports.print_details(student, "student")
    if solution:
        reports.print_details(solution, "solution")


def validate_options(grader, runner, args, sandbox):
    """Every option of `grade` checked by the grader before anything runs or any earlier report
    is touched: one clear message and exit 2 for a wrong one."""
    rc, out, timed_out = capture([grader, "grade", "--validate-only", *runner_options(grader, runner, sandbox),
                                  *grader_options(args)], timeout=120)
    if rc == 2 and not timed_out:
        lines = [l for l in out.strip().splitlines() if l.strip() and not l.startswith("Run with --help")]
        message = lines[0] if lines else "a wrong option"
        raise UsageError(re.sub(r"^\S+ grade: ", "", message))


def results_folder(args):
    """Where this grading's reports go: results/, or DIR/results/ with --stage-dir DIR."""
    stage = getattr(args, "stage_dir", None)
    return Path(os.path.abspath(stage)) / STAGED_RESULTS if stage else RESULTS


def grade_lab(build, lab, args, sandbox, out=RESULTS, replaced=None, emulate_student=False):
    """The student runner (unless --solution) and the reference runner (when built) of one lab,
    both through the lab's grader, their reports into out; the student's timings are compared
    with the reference's (reports.flag_fast_timings). Returns (student report or None, solution
    report or None). replaced: a list that gets [lab, label] for each report of out that a
    grader run replaced (its earlier files removed; not so for a build error). emulate_student:
    the student's runner is the emulated one (--quick's default without a GPU), the reference's
    not (it is there to be timed against, and emulation times nothing)."""
    replaced = [] if replaced is None else replaced
    # The kit's own rows (cpu-sequential and the like, timed in the grader) on this machine and
    # build: timed once, then reused by every grade; --solution and --retime-reference time them again.
    kept_timings = reference_cache.kit_timings_dir(build, lab.name)
    if args.solution or getattr(args, "retime_reference", False):
        shutil.rmtree(kept_timings, ignore_errors=True)
    args = with_options(args, kept_timings=kept_timings)
    grader = build_grader(build, lab)
    student = solution = None
    emulated = getattr(args, "emulate", False)
    runner_target, sol_target = runner_targets(lab, emulated)
    if emulate_student:
        runner_target = runner_targets(lab, True)[0]
    student_args = args
    if emulate_student:  # the quick sizes to check on (emulation is far slower than a GPU); timings as asked
        student_args = with_options(args, emulate=True, sizes=getattr(args, "sizes", None) or (None if args.quick else EMULATED_SIZES))
    sol_runner, sol_err, sol_variants = None, "", []
    if sol_target:
        sol_runner, sol_err = make(build.dir, sol_target)
        if sol_runner is not None:
            sol_variants = list_variants(grader, sol_runner, sandbox)
    elif args.solution:
        raise LabkitError(f"no reference build of {lab.name} (solutions/ absent, or -Dsolutions=disabled)")
    runner, err = (None, "") if args.solution else make(build.dir, runner_target)
    not_emulated = ""  # why the student's files could not be emulated, when they fell back to their plain build
    if runner is None and not args.solution and runner_target != lab.runner:
        plain, _ = make(build.dir, lab.runner)
        if plain is not None:  # they compile, but not for the CPU: their GPU variants are not run
            not_emulated = cannot_emulate(err)
            say(f"your {lab.name} files build, but not for emulation on the CPU ({not_emulated}):\n"
                f"{first_errors(err, 6)}\ntheir GPU variants are graded without it (not run)\n")
            runner, err, student_args = plain, "", with_options(student_args, emulate=False)
    student_rows = None  # the student runner's list, once asked for
    if (emulate_student or (emulated and args.quick)) and not getattr(args, "variants", None):
        student_rows = variants_or(grader, runner, [], sandbox) if runner else []
        student_args, picked, left_out = one_configuration_each(student_args, student_rows)
        # The reference beside the student's: the same rows (its peers and Python track left out).
        args, _, left_out_ref = one_configuration_each(args, sol_variants, picked or None)
        if left_out or left_out_ref:
            say(f"--quick, emulated: each GPU kernel in the first of its configurations, {left_out or left_out_ref} "
                "others left out (--variants '*' checks them all, --variants 'gpu-02*' a step's)")
    if runner or sol_runner:
        validate_options(grader, runner or sol_runner, student_args if runner else args, sandbox)
    if not args.solution:
        if runner is None:
            say(f"build-error: the {lab.name} student files do not compile:\n")
            say(first_errors(err))
            say("")
            student = reports.placeholder(lab.name, "student", sol_variants, BUILD_ERROR,
                                          first_errors(err, 6))
        else:
            student = run_grader(grader, runner, lab.name, "student", out, student_args,
                                 sol_variants or student_rows or variants_or(grader, runner, [], sandbox), sandbox)
            if student and not_emulated and reports.mark_not_emulated(student, not_emulated):
                reports.write_back(student)
            replaced.append([lab.name, "student"])
    if sol_runner is not None:
        solution = time_reference(build, lab, grader, sol_runner, sol_variants, args, sandbox, out,
                                  keep_apart=student is not None,
                                  compared=None if args.solution else reference_cache.compared(student, sol_variants))
        replaced.append([lab.name, "solution"])
    elif sol_err:
        say(f"build-error: the {lab.name} reference does not compile:\n{first_errors(sol_err)}")
        solution = reports.placeholder(lab.name, "solution", [], BUILD_ERROR, first_errors(sol_err, 6))
    if student and solution and reports.flag_fast_timings(student, solution):
        reports.write_back(student)
    return student, solution


def time_reference(build, lab, grader, runner, variants, args, sandbox, out, keep_apart, compared=None):
    """The reference's report: its rows named in compared (those a student's report timed), kept
    for this machine, build and options where they were timed before (reference_cache), the
    others timed now in one run and kept too; None when there is none to time or keep.
    compared None (--solution, the reference graded for itself): the whole reference, always run.
    --retime-reference times every row again. keep_apart: its tables go to
    results/<lab>-solution.log and are printed after the student's, out of their way."""
    key, facts = reference_cache.fingerprint(build, lab, grader, runner, sandbox, grader_options(args))
    log = out / f"{lab.name}-solution.log"
    kept = reference_cache.Kept(build, lab.name, key)
    anew = compared is None or getattr(args, "retime_reference", False)  # what was kept goes once this is kept
    missing = [r["name"] for r in variants] if compared is None else compared if anew else kept.missing(compared)
    if missing:
        if keep_apart:
            out.mkdir(parents=True, exist_ok=True)
        rows = args if compared is None else with_options(args, variants=",".join(missing))
        solution = run_grader(grader, runner, lab.name, "solution", out, rows, variants, sandbox,
                              log if keep_apart else None)
        if kept.add(facts, solution, replace=anew):  # else failed, or not kept: this run's report as it is
            solution = kept.compose(facts, out, timed_now=1)
    elif kept.pieces:
        solution = kept.compose(facts, out, timed_now=0)
    else:
        for suffix in reference_cache.SUFFIXES:  # an earlier grade's would read as this one's
            (out / f"{lab.name}-solution{suffix}").unlink(missing_ok=True)
        say(f"the reference solution: not timed (none of your {lab.name} steps was timed, so none is compared "
            "with it; the kit's own rows are the same code in both builds; --solution times all of it)")
        return None
    if keep_apart and log.exists():
        print_reference_log(lab.name, log)
    if solution.get("reference_timing"):
        say(reference_cache.note(solution["reference_timing"], solution["reference_timing"]["reused"]))
    return solution


def one_configuration_each(args, rows, among=None):
    """(args with --variants naming steps.first_configurations(rows), those names, how many rows
    that leaves out); among: only those of these names. Emulation switches fibers at every
    thread's every barrier: the six configurations of Lab 1's step 02 took most of its 90-second
    --quick, and a student's inner loop needs one."""
    picked = [n for n in first_configurations(rows) if among is None or n in among]
    if len(picked) == len(rows) or not picked:
        return args, picked, 0
    return with_options(args, variants=",".join(picked)), picked, len(rows) - len(picked)


def default_emulation(args, build, names):
    """Whether this grading emulates the GPU variants without being asked: on a machine without a
    CUDA device, where they would otherwise read 'not run' (--no-emulate keeps that). Says so
    either way, and why not where the build cannot emulate."""
    if (getattr(args, "emulate", False) or getattr(args, "no_emulate", False)
            or getattr(args, "python_simulate", False) or machine_gpu(build)):
        return False
    cannot = [n for n in names if not build.lab(n).emulated_runner]
    if cannot:
        say(f"no CUDA device here: the GPU variants of {', '.join(cannot)} stay 'not run' (this build cannot "
            "emulate them: emulate/meson.build lists the labs it covers)")
        return False
    say("no CUDA device here: the GPU variants are emulated on the CPU, on the quick sizes (the default "
        "without a GPU; its compile the first time: docs/emulation.md; --no-emulate leaves them 'not run')")
    return True


def quick_without_gpu(args, build):
    """Without a CUDA device, a grading is --quick unless --full (or sizes) are asked for: the
    full sweep there times only the CPU steps, for minutes, and the GPU steps' tables need a GPU.
    Says so."""
    if args.quick or getattr(args, "full", False) or getattr(args, "sizes", None) or getattr(args, "perf_sizes", None) \
            or machine_gpu(build):
        return
    args.quick = True
    say("no CUDA device here: --quick, the default without a GPU (--full times your CPU steps on every size)")


def worked_on_first(build, names):
    """The labs in teaching order, those whose files differ from the starter as shipped first
    (tests/starter_guard.py's manifests): the lab a student works on shows its table first."""
    edited = runpy.run_path(str(STARTER_GUARD))["edited"]
    def changed(name):
        folder = ROOT / "labs" / name
        manifest = folder / "kit" / "tests" / "starter.sha256"
        return manifest.is_file() and bool(edited(manifest, folder))
    first = [n for n in names if changed(n)]
    if first and len(first) < len(names):
        say(f"{', '.join(first)} first: {'its' if len(first) == 1 else 'their'} files differ from the starter")
    return first + [n for n in names if n not in first]


class GradeDurations:
    """How long each lab's grade took here last time (BUILD/grade-durations.json, by lab and by
    --quick or not): the progress line's estimate of the time left. A grade that timed the
    reference is not kept: the next one reuses that timing (reference_cache)."""
    FILE = "grade-durations.json"

    def __init__(self, build, args):
        self.path = build.dir / self.FILE
        self.kind = "quick" if args.quick else "full"
        try:
            self.known = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.known = {}

    def left(self, names):
        """"; about 2 min left, as the last grade here took" for the labs still to grade, or ""
        where one of them has not been graded here in this kind before."""
        seconds = [self.known.get(self.kind, {}).get(n) for n in names]
        if not seconds or any(not isinstance(s, (int, float)) for s in seconds):
            return ""
        total = sum(seconds)
        left = f"{total / 60:.0f} min" if total >= 90 else f"{total:.0f} s"
        return f"; about {left} left, as the last grade here took"

    def record(self, name, seconds):
        self.known.setdefault(self.kind, {})[name] = round(seconds, 1)
        try:
            write_atomic(self.path, json.dumps(self.known, indent=1))
        except OSError:
            pass  # a read-only build folder: no estimate next time


def grade_default(args, labs, sandbox):
    """Student tree (and reference when built) for each lab, then the side-by-side summary."""
    # One fresh seed for both sides, so that a reference timed in this run is checked on the same
    # images (a kept one, reference_cache, was timed on the same sizes and kinds of image).
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
    build = open_build(build_dir_of(args))
    if getattr(args, "full", False) and args.quick:
        raise UsageError("--full and --quick: one or the other")
    names = build.select(labs) if labs else worked_on_first(build, build.names())
    quick_without_gpu(args, build)
    if getattr(args, "emulate", False):
        for name in names:  # every lab asked for has an emulated runner, before any is graded
            runner_targets(build.lab(name), True)  # one without: its message says why
        if not args.quick and not args.sizes:  # the full sizes would take hours of fiber switches
            args.quick = True
            say("--emulate: the quick sizes (--sizes for others; emulation is far slower than a GPU)")
    if default_emulation(args, build, names):
        if args.solution:
            args.emulate = True
        emulate_student = not args.solution
    else:
        emulate_student = False
    say(f"sandbox of the runners: {sandbox.label}")
    out = results_folder(args)
    runs, replaced, exit_status = [], [], 0
    durations = GradeDurations(build, args)
    for i, name in enumerate(names):
        say(f"\n=== {name} ({i + 1} of {len(names)}{durations.left(names[i:])}) " + "=" * max(3, 50 - len(name)))
        started = time.monotonic()
        student, solution = grade_lab(build, build.lab(name), args, sandbox, out, replaced, emulate_student)
        if not solution or (solution.get("reference_timing") or {}).get("reused") == "all":
            durations.record(name, time.monotonic() - started)  # not a first grade's timing of the reference
        runs += [r for r in (student, solution) if r is not None]
        print_summary(name, student, solution)
        if any(r and reports.failing(r) for r in (student, solution)):
            exit_status = 1
        if student:
            say(f"student: {reports.student_summary(student)}")
            if student.get("environment"):  # a report of this run, not a stand-in for a build error
                say(f"results/{name}-student.md has the tables for the report")
    reports.write_run_outputs(args, runs, exit_status, sandbox.label)
    if getattr(args, "stage_dir", None):  # last: the staged reports are whole
        write_atomic(Path(args.stage_dir) / FINISHED,
                     json.dumps({"exit_status": exit_status, "reports": replaced}))
    return exit_status
