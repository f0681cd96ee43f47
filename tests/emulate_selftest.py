#!/usr/bin/env python3
"""`grade --emulate` through a lab's grader: the GPU variants of an emulated runner (emulate/)
run on the CPU, under the in-order, reversed and shuffled schedules of a block's threads.

  emulate_selftest.py GRADER SOLUTION_RUNNER PLAIN_RUNNER GLOB --bugs BUGS_PY
                      [--broken RUNNER GLOB GPU_RUNNER GPU_VERDICTS BUG]... [--sizes S]

  - the solution's emulated runner: every variant matching GLOB reads pass-emulated (never
    pass: no GPU passed it), is not timed, and the report says what emulation cannot show;
  - each --broken RUNNER, the same solution with one of the lab's broken kernels (bugs.py: a
    missing barrier, an off-by-one): every variant matching its GLOB fails, and its detail names
    the schedule that failed it and opens by saying what kind of bug it is, as BUG's "kind" in
    BUGS_PY says: a race, or not a race (a formula error, the same under every schedule);
  - an emulated runner graded without --emulate is refused (exit 2): its verdicts would read as
    a GPU's; and so is PLAIN_RUNNER (the solution's runner, not emulated) with --emulate;
  - with a CUDA device, the emulated and the GPU verdicts agree: PLAIN_RUNNER passes on the GPU
    what passed emulated, and each broken kernel's GPU_RUNNER (its plain build, "" for none) gets
    a verdict its GPU test accepts of each variant (GPU_VERDICTS, e.g. "pass,fail" for a race that
    real hardware may well not show: that test catches it on some variant or size, or with
    compute-sanitizer's racecheck).
The emulated runners are CPU programs: no GPU or CUDA needed for the rest.
"""
import argparse
import json
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

SCHEDULES = ("in-order", "reversed", "shuffled:")  # the grader's (checking.cpp), the shuffle's seed after it
# How a failed emulated variant's detail opens, by the kind of its bug (checking.cpp's failure_words);
# "formula": an error of the arithmetic or an index, which no order of the threads changes.
KIND_WORDS = {"race": "a race:", "formula": "not a race"}
SEED = "4242"


def fail(msg):
    print("FAILED:", msg)
    sys.exit(1)


def grade(grader, runner, glob, sizes, workdir, *extra):
    out = Path(workdir) / "result.json"
    out.unlink(missing_ok=True)
    cmd = [grader, "grade", "--runner", runner, "--sandbox", "off", "--variants", glob, "--sizes", sizes,
           "--photos", "", "--seed", SEED, "--timeout", "60", "--perf-sizes", "64", "--runs", "1",
           "--json", str(out), "--diff-dir", str(Path(workdir) / "diff"), *extra]
    print("$", " ".join(map(str, cmd)), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    print(proc.stdout)
    return proc.returncode, (json.loads(out.read_text()) if out.is_file() else None), proc.stdout


def students(report, glob_prefix):
    rows = [v for v in report["variants"] if not v.get("reference") and v["kind"] == "gpu"]
    if not rows:
        fail(f"no GPU variant matched {glob_prefix}")
    return rows


def compare_with_gpu(a, work, solution, broken):
    """With a CUDA device: the GPU's verdicts next to the emulated ones (solution: {variant:
    emulated status}; broken: {emulated runner: {variant: emulated status}})."""
    rc, report, out = grade(a.grader, a.plain, a.glob, a.sizes, work, "--no-perf")
    if report is None and "matches no variant" in out:
        print("a build without CUDA: the GPU's verdicts are not compared")
        return
    if report is None:
        fail(f"the solution's plain runner wrote no report (exit {rc})")
    gpu = {v["name"]: v["status"] for v in students(report, a.glob)}
    if all(s in ("not-run", "skipped") for s in gpu.values()):
        print("no CUDA device here: the GPU's verdicts are not compared")
        return
    lines = []
    for name, status in sorted(solution.items()):
        lines.append(f"solution {name}: emulated {status}, GPU {gpu.get(name)}")
        if gpu.get(name) not in ("pass", "skipped"):  # skipped: needs a newer GPU than this one
            fail(f"the solution's {name} passed emulated but reads {gpu.get(name)} on the GPU")
    for runner, glob, gpu_runner, accepted, _ in a.broken:
        if not gpu_runner:
            continue
        _, report, _ = grade(a.grader, gpu_runner, glob, a.sizes, work, "--no-perf")
        if report is None:
            fail(f"{gpu_runner} wrote no report")
        for v in students(report, glob):
            lines.append(f"{Path(runner).name} {v['name']}: emulated {broken[runner].get(v['name'])}, GPU {v['status']}"
                         + (" (the GPU did not show the bug at these sizes, as its GPU test allows: a race, "
                            "caught there on other variants or sizes, or by racecheck)" if v["status"] == "pass" else ""))
            if v["status"] not in accepted.split(","):
                fail(f"{gpu_runner} {v['name']}: {v['status']} on the GPU, its GPU test accepts only {accepted}")
    print("emulated and GPU verdicts:\n  " + "\n  ".join(lines))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("grader")
    p.add_argument("solution")
    p.add_argument("plain")
    p.add_argument("glob")
    p.add_argument("--bugs", required=True, help="the lab's bugs.py")
    p.add_argument("--broken", nargs=5, action="append", default=[],
                   metavar=("RUNNER", "GLOB", "GPU_RUNNER", "GPU_VERDICTS", "BUG"))
    p.add_argument("--sizes", default="33x17,300x7,1030x5")
    a = p.parse_args()

    with tempfile.TemporaryDirectory() as work:
        # The solution: pass-emulated, timed nowhere, the caveat in the report.
        rc, report, out = grade(a.grader, a.solution, a.glob, a.sizes, work, "--emulate")
        if rc != 0 or report is None:
            fail(f"the solution's emulated grading exited {rc}")
        for v in students(report, a.glob):
            if v["status"] != "pass-emulated":
                fail(f"{v['name']}: {v['status']} ({v.get('detail')}), expected pass-emulated")
            if not all(s in v["detail"] for s in SCHEDULES) or "shuffled:" + SEED not in v["detail"]:
                fail(f"{v['name']}: its detail does not name the three schedules: {v['detail']}")
        gpu_rows = students(report, a.glob)
        gpu = {v["name"] for v in gpu_rows}
        timed = sorted({p["variant"] for p in report.get("performance", [])} & gpu)
        if timed:
            fail(f"emulated GPU variants were timed: {timed}")
        if not (report.get("environment") or {}).get("gpu_emulated"):
            fail("the report's environment does not say what emulation cannot show (gpu_emulated)")
        if "pass (emulated)" not in out or "cannot show" not in out:
            fail("the grader's output does not show 'pass (emulated)' and what emulation cannot show")

        # Each broken kernel: caught under some schedule, which the detail names.
        emulated = {}  # runner -> {variant: status}, for the GPU's comparison
        bugs = runpy.run_path(a.bugs)["BUGS"]
        for runner, glob, _, _, bug in a.broken:
            rc, report, _ = grade(a.grader, runner, glob, a.sizes, work, "--emulate", "--no-perf")
            if report is None:
                fail(f"{runner}: its grading wrote no report (exit {rc})")
            rows = students(report, glob)
            missed = [f"{v['name']} {v['status']}" for v in rows if v["status"] not in ("fail", "error", "timeout")]
            if rc != 1 or missed:
                fail(f"{runner}: the broken kernel was not caught (exit {rc}): {', '.join(missed)}")
            kind = bugs[bug].get("kind")
            for v in rows:
                if not any(s in v["detail"] for s in SCHEDULES):
                    fail(f"{v['name']}: its detail does not name the schedule that failed it: {v['detail']}")
                if kind and not v["detail"].startswith(KIND_WORDS[kind]):
                    fail(f"{bug} {v['name']}: a {kind} bug, but its detail does not open with "
                         f"'{KIND_WORDS[kind]}': {v['detail']}")
            emulated[runner] = {v["name"]: v["status"] for v in rows}
        compare_with_gpu(a, work, {v["name"]: v["status"] for v in gpu_rows}, emulated)

        # A schedule the runner does not know is an error, never a run under its default order.
        cmd = [a.solution, "check", gpu_rows[0]["exercise"], gpu_rows[0]["name"], "--manifest", str(Path(work) / "none"),
               "--answers", work, "--schedule", "backwards"]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        if proc.returncode != 3 or "error\t--schedule backwards" not in proc.stdout:
            fail(f"runner check --schedule backwards: exit {proc.returncode}, {proc.stdout.strip()!r}; expected "
                 "exit 3 and an error naming the schedule")

        # Without --emulate, the emulated runner is refused before anything runs.
        rc, report, out = grade(a.grader, a.solution, a.glob, a.sizes, work, "--no-perf")
        if rc != 2 or report is not None or "--emulate" not in out:
            fail(f"an emulated runner graded without --emulate: exit {rc}, expected 2 and a message naming --emulate")
        rc, report, out = grade(a.grader, a.plain, "*", a.sizes, work, "--no-perf", "--emulate")
        if rc != 2 or report is not None or "not an emulated one" not in out:
            fail(f"a runner that is not emulated, graded with --emulate: exit {rc}, expected 2 and a message saying so")
    kinds = sum(1 for *_, bug in a.broken if runpy.run_path(a.bugs)["BUGS"][bug].get("kind"))
    print(f"ok: pass (emulated) under three schedules, {len(a.broken)} broken kernels caught ({kinds} told a race "
          "from a formula error), the runner's kind checked")


if __name__ == "__main__":
    main()
