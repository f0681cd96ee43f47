"""`labkit grade --submission ...`: a class of submissions, each built apart, all graded by the
graders of the main build, then summarised in results/class.csv and results/class.json.

Trust: the graders are kit code from --build-dir and are never rebuilt from a submission; a
submission only ever provides a runner, built in build-submissions/<name>/build."""

import csv
import json
from pathlib import Path

from . import reports
from .build import BuildInfo, build_dir_of, configure, forwarded_options, make, open_build
from .grading import run_grader, validate_options, variants_or
from .programs import build_grader, list_variants, student_files
from .submissions import safe_extract, stage, submission_name
from .util import RESULTS, SUBMISSION_BUILDS, LabkitError, UsageError, first_errors, print_table, rel, say


def reference_variants(build, lab, grader):
    """The variant list that stands in for a submission that does not compile: the reference's
    when it is built here, else this checkout's labs/ runner's, else none."""
    for target in (lab.solution_runner, lab.runner):
        if not target:
            continue
        runner, _ = make(build.dir, target)
        if runner is not None:
            try:
                return list_variants(grader, runner)
            except LabkitError as e:
                say(f"warning: {e}")
    say(f"warning: no runner of {lab.name} builds here: a submission that does not compile gets "
        "one '*' row instead of one per variant")
    return []


def grade_submissions(args, labs):
    main = open_build(build_dir_of(args))
    labs = main.select(labs)
    graders, lab_files, lab_variants = {}, {}, {}
    for name in labs:
        lab = main.lab(name)
        graders[name] = build_grader(main, lab)
        lab_files[name] = student_files(graders[name], name)
        lab_variants[name] = reference_variants(main, lab, graders[name])
        starter, _ = make(main.dir, lab.runner)  # the options are checked against the starter's variants
        if starter is not None:
            validate_options(graders[name], starter, args)
    for raw in args.submission:
        if not Path(raw).expanduser().exists():
            raise UsageError(f"submission {raw}: no such file or folder")
    forwarded = forwarded_options(main.dir)
    # The submission's build configures every lab of the kit: the labs not graded get the
    # starter's files (a submission for one lab need not hand in the others).
    staged_files = dict(lab_files)
    for name in main.names():
        if name not in staged_files:
            staged_files[name] = student_files(build_grader(main, main.lab(name)), name)

    taken, table, exit_status = set(), [], 0
    for raw in args.submission:
        src = Path(raw).expanduser()
        if not src.exists():
            raise LabkitError(f"submission {raw}: no such file or folder")
        name = submission_name(src.resolve(), taken)
        say(f"\n=== submission {name} ({raw}) " + "=" * 20)
        work = SUBMISSION_BUILDS / name
        if src.is_file():
            src = safe_extract(src, work / "unpacked")
        staged = work / "src"
        notes = stage(src, staged, staged_files, main.names(), lab_files)
        for n in notes:
            say("  " + n)
        out_dir = RESULTS / "submissions" / name
        out_dir.mkdir(parents=True, exist_ok=True)
        got = grade_submission(args, name, staged, work / "build", forwarded, graders,
                               lab_variants, out_dir)
        if any(reports.failing(r) for r in got.values()):
            exit_status = 1
        table.append({"name": name, "path": str(Path(raw)), "missing_files": notes, "labs": got})

    write_class(args, labs, lab_variants, table)
    return exit_status


def submission_build(bdir, staged, forwarded):
    """Configures the submission's own build. Returns (BuildInfo or None, why not in short for
    the reports, why not in full for the screen)."""
    ok, out = configure(bdir, [f"-Dsubmission={staged.resolve()}", "-Dsolutions=disabled"]
                        + forwarded, echo=False)
    if not ok:
        return None, "meson setup failed: " + first_errors(out, 4), "meson setup failed:\n" + first_errors(out)
    try:
        return BuildInfo.read(bdir), "", ""
    except LabkitError as e:
        return None, str(e), str(e)


def grade_submission(args, name, staged, bdir, forwarded, graders, lab_variants, out_dir):
    """Builds the submission's runner of each lab and grades it with the main build's grader.
    Returns lab -> report."""
    build, why, shown = submission_build(bdir, staged, forwarded)
    got = {}
    for lab, grader in graders.items():
        if build is None:
            say(f"  {lab}: {shown}")
            got[lab] = reports.placeholder(lab, name, lab_variants[lab], "build-error", why)
            continue
        try:
            target = build.lab(lab).runner
        except LabkitError as e:
            got[lab] = reports.placeholder(lab, name, lab_variants[lab], "error", str(e))
            say(f"  {lab}: {e}")
            continue
        runner, err = make(build.dir, target)
        if runner is None:
            say(f"  {lab}: build-error\n" + "\n".join("    " + l for l in first_errors(err).splitlines()))
            (out_dir / f"{lab}-build.log").write_text(err)
            got[lab] = reports.placeholder(lab, name, lab_variants[lab], "build-error", first_errors(err, 6))
            continue
        log_path = out_dir / f"{lab}.log"
        got[lab] = run_grader(grader, runner, lab, name, out_dir, args,
                              variants_or(grader, runner, lab_variants[lab]), log_path=log_path)
        p, t = reports.counts(got[lab])
        say(f"  {lab}: {p}/{t} pass  ({reports.tally(got[lab])}); log {rel(log_path)}")
        reports.print_details(got[lab], "   ")
    return got


def write_class(args, labs, lab_variants, table):
    """results/class.csv (one row per submission) and results/class.json."""
    columns = {lab: [v["name"] for v in lab_variants[lab]] for lab in labs}
    for row in table:
        for lab in labs:
            for v in row["labs"][lab]["variants"]:
                if v["name"] not in columns[lab] and v["name"] != "*":
                    columns[lab].append(v["name"])
    csv_path = Path(args.csv) if args.csv else RESULTS / "class.csv"
    json_path = Path(args.json) if args.json else RESULTS / "class.json"
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    summary = []
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        head = ["name"]
        for lab in labs:
            head += [f"{lab} score", f"{lab} passed/total"] + [f"{lab}:{v}" for v in columns[lab]]
        w.writerow(head)
        for row in table:
            cells, entry = [row["name"]], {"name": row["name"], "path": row["path"],
                                           "missing_files": row["missing_files"], "labs": {}}
            for lab in labs:
                rep = row["labs"][lab]
                p, t = reports.counts(rep)
                score = round(100.0 * p / t, 1) if t else 0.0
                status = {v["name"]: v.get("status") for v in rep["variants"]}
                if "*" in status:  # a stand-in without the variant list: applies to all
                    status = {v: status["*"] for v in columns[lab]} or status
                cells += [score, f"{p}/{t}"] + [status.get(v, "") for v in columns[lab]]
                entry["labs"][lab] = {"score": score, "passed": p, "total": t, "statuses": status,
                                      "variants": rep["variants"],
                                      "performance": rep.get("performance", []),
                                      "environment": rep.get("environment", {})}
            w.writerow(cells)
            summary.append(entry)
    json_path.write_text(json.dumps({"labs": labs, "submissions": summary}, indent=2))
    say(f"\nclass results: {rel(csv_path)}, {rel(json_path)}")
    head = ["submission"] + [f"{lab}" for lab in labs]
    print_table(head, [[e["name"]] + [f"{e['labs'][l]['passed']}/{e['labs'][l]['total']} "
                                      f"({e['labs'][l]['score']}%)" for l in labs] for e in summary])
