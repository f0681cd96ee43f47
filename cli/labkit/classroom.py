"""`labkit grade --submission ...`: a class of submissions, each built apart, all graded by the
graders of the main build, then summarised in results/class.csv and results/class.json.

Trust: the graders are kit code from --build-dir and are never rebuilt from a submission; a
submission only ever provides its student files, staged and built in a work folder outside the
kit (--work-dir), compiled in the sandbox (sandbox.CompileSandbox), and its runner is run by the
grader in the sandbox too. Every limit (the wall clock of a grader process, the variant rows of a
stand-in report) comes from the kit's variant list, never from what a submission's runner says.

The class files: the old ones are moved aside (*.previous) when the run starts; class.json is
rewritten after every submission with "complete": false, and at the end with "complete": true,
when class.csv is written too. So a run that was interrupted or killed leaves a class.json that
says it is incomplete and no class.csv: never a stale file that looks current."""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from . import reports
from .confine import NO_GROUPS
from .build import (BuildInfo, CompileBudget, build_dir_of, build_option, configure, is_configured, kit_inputs, make,
                    ninja, open_build, student_objects, submission_options)
from .grading import run_grader, validate_options
from .programs import build_grader, list_variants, runner_sandbox, student_files
from .sandbox import CompileSandbox
from .submissions import stage, submission_name
from .util import (RESULTS, ROOT, LabkitError, UsageError, default_work_dir, first_errors, inside,
                   kit_path, print_table, rel, say, write_atomic)
from .verdicts import BUILD_ERROR, ERROR


# Every submission is staged and built in the same slot of the work folder, one after another:
# the kit's own objects compile once per class run, and a submission recompiles only the files
# that differ from the one before (stage() leaves identical files untouched, so their mtimes
# hold). Nothing of a submission is left in the slot when the next one is staged.
SLOT = "slot"


def configured_with(bdir, options):
    """Whether bdir is a configured build with exactly these -D options' values."""
    if not is_configured(bdir):
        return False
    for opt in options:
        name, _, value = opt[2:].partition("=")
        have = build_option(bdir, name)
        if isinstance(have, list):
            have = ",".join(have)
        if str(have).lower() != value.lower():
            return False
    return True


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


def reference_variants(build, lab, grader, sandbox):
    """The kit's variant list of lab: the reference's when it is built here, else this
    checkout's labs/ runner's, else none. It names the rows of a stand-in report (a submission
    that does not compile) and sizes every grader process's wall-clock limit."""
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


@dataclass
class ClassRun:
    """What every submission of a class run is graded with: the main build's graders, the kit's
    variant lists, the reference's reports to compare timings with, the sandbox, and where
    submissions are staged and built."""
    args: object
    labs: list
    graders: dict
    lab_variants: dict
    sandbox: object
    work: Path
    forwarded: list
    references: dict = field(default_factory=dict)  # lab -> the reference solution's report
    private: list = field(default_factory=list)  # the class files, hidden from every compile
    groups: object = NO_GROUPS  # confine.Groups: each compile's control group

    def grade_references(self, main):
        """With timing on, the reference solution of each lab (when built) graded once, so that
        every submission's timings can be compared with it (reports.flag_fast_timings)."""
        for lab in self.labs:
            target = main.lab(lab).solution_runner
            runner = make(main.dir, target)[0] if target else None
            if runner is None:
                say(f"{lab}: no reference solution built here: timings are not compared with it")
                continue
            say(f"\n=== {lab}: the reference solution, timed once to compare every submission with")
            log = RESULTS / f"{lab}-solution.log"
            RESULTS.mkdir(parents=True, exist_ok=True)
            report = run_grader(self.graders[lab], runner, lab, "solution", RESULTS, self.args,
                                self.lab_variants[lab], self.sandbox, log_path=log)
            p, t = reports.counts(report)
            say(f"  {lab} (solution): {p}/{t} pass  ({reports.tally(report)}); log {rel(log)}")
            self.references[lab] = report

    def build_of(self, staged, bdir):
        """Configures the submission's own build (outside the sandbox: meson runs no student
        code and reads no student file). Returns (BuildInfo or None, why not in short for the
        reports, why not in full for the screen)."""
        options = [f"-Dsubmission={staged.resolve()}", "-Dsolutions=disabled"] + self.forwarded
        # The slot's build, configured once: ninja itself regenerates it when a meson.build changes.
        ok, out = (True, "") if configured_with(bdir, options) else configure(bdir, options, echo=False)
        if not ok:
            return (None, "meson setup failed: " + first_errors(out, 4),
                    "meson setup failed:\n" + first_errors(out))
        try:
            return BuildInfo.read(bdir), "", ""
        except LabkitError as e:
            return None, str(e), str(e)

    @staticmethod
    def build_runner(bdir, target, staged_lab, confine, budget):
        """The kit's own part of the runner target (untimed), then the runner within the
        submission's compile budget. Returns (its path or None, the build log, why in short)."""
        kit = kit_inputs(bdir, target, student_objects(bdir, staged_lab))
        ok, err = ninja(bdir, kit, echo=False, confine=confine, progress=False) if kit else (True, "")
        if ok and not budget.spent():
            runner, err = make(bdir, target, confine=confine, timeout=budget.left())
            if runner is not None:
                return runner, "", ""
        if ok and budget.spent():
            return None, err + "\n" + budget.why(), budget.why()
        return None, err, first_errors(err, 6)

    def grade_submission(self, name, out_dir):
        """Builds the submission's runner of each lab in the sandbox and grades it with the main
        build's grader. Returns lab -> report."""
        staged, bdir = self.work / SLOT / "src", self.work / SLOT / "build"
        build, why, shown = self.build_of(staged, bdir)
        confine = CompileSandbox(self.sandbox, bdir, staged, self.work, self.private, self.groups)
        budget = CompileBudget(self.args.compile_timeout)
        got = {}
        for lab, grader in self.graders.items():
            stand_in = lambda status, detail: dict(
                reports.placeholder(lab, name, self.lab_variants[lab], status, detail),
                sandbox=runner_sandbox(grader, self.sandbox))
            if build is None:
                say(f"  {lab}: {shown}")
                got[lab] = stand_in(BUILD_ERROR, why)
                continue
            try:
                target = build.lab(lab).runner
            except LabkitError as e:
                got[lab] = stand_in(ERROR, str(e))
                say(f"  {lab}: {e}")
                continue
            runner, err, short = self.build_runner(build.dir, target, staged / lab, confine, budget)
            if runner is None:
                say(f"  {lab}: build-error\n" + "\n".join("    " + l for l in short.splitlines()))
                write_atomic(out_dir / f"{lab}-build.log", err)
                got[lab] = stand_in(BUILD_ERROR, short)
                continue
            log_path = out_dir / f"{lab}.log"
            got[lab] = reports.unstage(run_grader(grader, runner, lab, name, out_dir, self.args, self.lab_variants[lab],
                                                  self.sandbox, log_path=log_path), staged)
            reports.flag_fast_timings(got[lab], self.references.get(lab))
            p, t = reports.counts(got[lab])
            say(f"  {lab}: {p}/{t} pass  ({reports.tally(got[lab])}); log {rel(log_path)}")
            reports.print_details(got[lab], "   ")
        for report in got.values():
            report["build_sandbox"] = self.sandbox.label
            reports.write_back(report)
        return got


def grade_submissions(args, labs, sandbox):
    work = work_dir_of(args)
    for raw in args.submission:
        if not Path(raw).expanduser().exists():
            raise UsageError(f"submission {raw}: no such file or folder")
    main = open_build(build_dir_of(args))
    labs = main.select(labs)
    graders, lab_files, lab_variants = {}, {}, {}
    for name in labs:
        lab = main.lab(name)
        graders[name] = build_grader(main, lab)
        lab_files[name] = student_files(graders[name], name)
        lab_variants[name] = reference_variants(main, lab, graders[name], sandbox)
        starter, _ = make(main.dir, lab.runner)  # the options are checked against the starter's variants
        if starter is not None:
            validate_options(graders[name], starter, args, sandbox)
    # The submission's build configures every lab of the kit: the labs not graded get the
    # starter's files (a submission for one lab need not hand in the others).
    staged_files = dict(lab_files)
    for name in main.names():
        if name not in staged_files:
            staged_files[name] = student_files(build_grader(main, main.lab(name)), name)
    out = ClassFiles(args, labs, sandbox)
    run = ClassRun(args, labs, graders, lab_variants, sandbox, work, submission_options(main.dir),
                   private=out.paths(), groups=main.groups())
    say(f"sandbox: {sandbox.label}; {run.groups.description} (compiling and running every submission); "
        f"work folder {work}")
    if not args.no_perf:
        run.grade_references(main)

    taken, table, exit_status = set(), [], 0
    for raw in args.submission:
        src = Path(raw).expanduser()
        name = submission_name(src.resolve(), taken)
        say(f"\n=== submission {name} ({raw}) " + "=" * 20)
        notes = stage(src.resolve(), work / SLOT / "src", staged_files, main.names(), lab_files)
        for n in notes:
            say("  " + n)
        out_dir = RESULTS / "submissions" / name
        out_dir.mkdir(parents=True, exist_ok=True)
        got = run.grade_submission(name, out_dir)
        if any(reports.failing(r) for r in got.values()):
            exit_status = 1
        table.append({"name": name, "path": str(Path(raw)), "notes": notes, "labs": got})
        out.write(table, lab_variants, complete=False)

    out.write(table, lab_variants, complete=True)
    out.show()
    return exit_status


class ClassFiles:
    """results/class.csv (one row per submission) and results/class.json (everything), or the
    paths of --csv and --json; see the module's docstring for when they are written."""

    def __init__(self, args, labs, sandbox):
        self.csv = Path(args.csv) if args.csv else RESULTS / "class.csv"
        self.json = Path(args.json) if args.json else RESULTS / "class.json"
        self.labs, self.sandbox, self.summary = labs, sandbox, []
        for path in (self.csv, self.json):
            if path.exists():
                os.replace(path, self.previous(path))

    @staticmethod
    def previous(path):
        return path.with_name(path.name + ".previous")

    def paths(self):
        """Every class file of the run, the previous run's included (hidden from compiles)."""
        return [p for path in (self.csv, self.json) for p in (path, self.previous(path))]

    def columns(self, table, lab_variants):
        """lab -> variant names: the kit's, then any other a report names."""
        columns = {lab: [v["name"] for v in lab_variants[lab]] for lab in self.labs}
        for row in table:
            for lab in self.labs:
                for v in row["labs"][lab]["variants"]:
                    if v["name"] not in columns[lab] and v["name"] != "*":
                        columns[lab].append(v["name"])
        return columns

    def entry(self, row, columns):
        """(the CSV cells, the class.json entry) of one submission."""
        cells = [row["name"], self.sandbox.label,
                 "; ".join(sorted({row["labs"][lab].get("sandbox", "") for lab in self.labs}))]
        entry = {"name": row["name"], "path": row["path"], "notes": row["notes"], "labs": {}}
        for lab in self.labs:
            rep = row["labs"][lab]
            p, t = reports.counts(rep)
            score = round(100.0 * p / t, 1) if t else 0.0
            status = {v["name"]: v.get("status") for v in rep["variants"]}
            if "*" in status:  # a stand-in without the variant list: applies to all
                status = {v: status["*"] for v in columns[lab]} or status
            flags = {v["name"]: v["flags"] for v in rep["variants"] if v.get("flags")}
            cells += [score, f"{p}/{t}", reports.review(rep)] + [status.get(v, "") for v in columns[lab]]
            entry["labs"][lab] = {
                "score": score, "passed": p, "total": t, "statuses": status, "flags": flags,
                "sandbox": rep.get("sandbox", ""), "build_sandbox": rep.get("build_sandbox", ""),
                "variants": rep["variants"],
                "performance": [dict(r, flagged_for_review=True) if r.get("variant") in flags else r
                                for r in rep.get("performance", [])],
                "environment": rep.get("environment", {})}
        return cells, entry

    def write(self, table, lab_variants, complete):
        """class.json (complete or not), and class.csv once complete; both atomically."""
        columns = self.columns(table, lab_variants)
        head = ["name", "build sandbox", "run sandbox"]
        for lab in self.labs:
            head += [f"{lab} score", f"{lab} passed/total", f"{lab} review"] + [f"{lab}:{v}" for v in columns[lab]]
        rows, self.summary = [head], []
        for row in table:
            cells, entry = self.entry(row, columns)
            rows.append(cells)
            self.summary.append(entry)
        write_atomic(self.json, json.dumps({"complete": complete, "sandbox": self.sandbox.label,
                                            "labs": self.labs, "submissions": self.summary}, indent=2))
        if complete:
            write_atomic(self.csv, reports.csv_text(rows))

    def show(self):
        say(f"\nclass results: {rel(self.csv)}, {rel(self.json)}  (sandbox: {self.sandbox.label})")
        print_table(["submission"] + list(self.labs),
                    [[e["name"]] + [f"{e['labs'][l]['passed']}/{e['labs'][l]['total']} ({e['labs'][l]['score']}%)"
                                    + (" review" if e["labs"][l]["flags"] else "") for l in self.labs]
                     for e in self.summary])
