"""The small subcommands (build, run, list) and the dispatch of `grade` to its modes (yours and the
reference, --sanitize, --slurm). `grade --submission` is grade-all's (cli.as_grade_all)."""

import os
from pathlib import Path

from .build import build_dir_of, ninja, open_build
from .grading import grade_default
from .programs import lab_programs, list_variants, query, runner_options
from .proc import execute
from .sandbox import choose
from .sanitize import grade_sanitized
from .slurm_grade import grade_on_slurm
from .plots import draw_reports
from .util import RESULTS, LabkitError, UsageError, kit_path, print_table, rel, say, show_cmd


def cmd_build(args):
    """What grading runs (labkit-build.json's grading target, meson.build says which programs); with
    --all, also the tests' own programs (what ./labkit test builds)."""
    build = open_build(build_dir_of(args))
    ok, _ = ninja(build.dir, [] if args.all or not build.grading else [build.grading], jobs=args.jobs)
    return 0 if ok else 1


def cmd_grade(args):
    for option, path in (("--json", args.json), ("--csv", args.csv)):
        check_output_file(path, option)  # before hours of grading, not after
    if args.emulate and args.no_emulate:
        raise UsageError("--emulate and --no-emulate exclude each other")
    if args.emulate and (args.sanitize or args.slurm):
        raise UsageError("--emulate grades this checkout's tree (or --solution) here: not with "
                         + ("--slurm, whose node has a GPU" if args.slurm else "--sanitize, which watches a GPU"))
    if args.slurm and args.sanitize:
        raise UsageError("--slurm grades your own files (or --solution) on a cluster node, without "
                         "--sanitize (a class: grade-all --slurm)")
    if args.sanitize:
        return grade_sanitized(args, args.labs, choose(args.no_sandbox))
    for option, given in (("--work-dir", args.work_dir), ("--compile-timeout", args.compile_timeout)):
        if given is not None:
            raise UsageError(f"{option} is of a class run (grade --submission, grade-all): not of your own files")
    sandbox = choose(args.no_sandbox)
    if args.plots and args.no_perf:
        say("--plots: nothing will be drawn, --no-perf times nothing (the plots are of timings)")
    # --slurm: the same grading as a job on a cluster's node, its reports brought back here
    status = grade_on_slurm(args) if args.slurm else grade_default(args, args.labs, sandbox)
    if args.plots and not args.no_perf:
        draw_plots_of_run(args)
    return status


def draw_plots_of_run(args):
    """grade --plots: the run's reports drawn; a machine without matplotlib gets the hint, and the
    grading's exit status stands."""
    build = open_build(build_dir_of(args))
    paths = [RESULTS / f"{lab}-{label}.json" for lab in build.select(args.labs)
             for label in ("student", "solution") if (RESULTS / f"{lab}-{label}.json").is_file()]
    try:
        written = draw_reports(paths, RESULTS / "plots")
    except LabkitError as e:
        say(f"plots: {e}")
        return
    kinds = sorted({p.stem.rsplit("-", 1)[-1] for p in written})
    if written:
        say(f"plots: {len(written)} PNGs in {rel(RESULTS / 'plots')}/ ({', '.join(kinds)}"
            + ("" if "bandwidth" in kinds else "; no bandwidth plot: no GPU variant was timed") + ")")


def check_output_file(path, option):
    """A file labkit will write at the end must be writable now: its folder exists (or can be
    made) and is writable, and it is not a folder."""
    if not path:
        return
    target = kit_path(path)
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if target.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
        raise UsageError(f"{option} {path}: cannot write there")


def cmd_run(args):
    build = open_build(build_dir_of(args))
    grader, runner = lab_programs(build, args.lab, args.solution)
    cmd = [grader, "run", args.variant, *runner_options(grader, runner, choose()), "--input", args.input,
           "--output", args.output]
    if args.raw:
        cmd += ["--raw", args.raw]
    cmd += getattr(args, "extra", [])
    show_cmd(cmd)
    # In the caller's folder: --input, --output and --raw are relative to it.
    rc, timed_out = execute(cmd, timeout=args.timeout, cwd=Path.cwd())
    if timed_out:
        raise LabkitError(f"killed after {args.timeout} s")
    return rc


def cmd_list(args):
    build = open_build(build_dir_of(args))
    sandbox = choose()
    for lab in build.select([args.lab] if args.lab else []):
        grader, runner = lab_programs(build, lab, args.solution)
        say(f"{lab}  ({rel(grader)} --runner {rel(runner)})")
        print_table(["variant", "kind", "summary"],
                    [[v["name"], v["kind"], v["summary"]] for v in list_variants(grader, runner, sandbox)])
        if args.files:
            say("student files, in order: " + ", ".join(query(grader, "list-files")))
        say("")
    return 0
