#!/usr/bin/env python3
"""A hang must stay cheap: the grader gives each case of a runner call a deadline made from the
reference's time on that case (grader/grader/grade.hpp, kDeadlineFactor and its neighbours), at
most --timeout, and once one configuration of a step has hung, its siblings get a short one.

  hang_selftest.py cpu GRADER RUNNER GLOB SOLUTION_RUNNER
      RUNNER's variants matching GLOB hang on the CPU: each is TIMEOUT, its detail names the case
      and says that the deadline came from the reference, and the grading costs seconds, not
      --timeout. Then a stand-in runner (written here) whose three CPU variants all hang, two of
      them configurations of one step: the second of those gets the short deadline.
  hang_selftest.py gpu GRADER RUNNER GLOB SOLUTION_RUNNER
      RUNNER's GPU variants matching GLOB (every configuration of one step) deadlock: each is
      TIMEOUT, the first within the reference's deadline, the others within the short one, all of
      them within HANG_BUDGET_S; then SOLUTION_RUNNER's variants of GLOB pass (a killed runner freed
      the GPU). Then a stand-in runner whose every GPU variant hangs (STEPS steps of CONFIGURATIONS
      configurations each, more than the old deadlines fit in HANG_BUDGET_S): once the GPU
      variants have hung for the grader's budget, each later step's first configuration gets the
      short deadline, and its siblings are TIMEOUT without a run, naming it; the whole grading
      costs at most HANG_BUDGET_S. Exit 77 without a CUDA device.

Every grading passes --timeout 60 (the default) explicitly: a deadline shorter than it must still
apply, since --timeout is the most a case may go without progress, not what every case gets.
"""
import json
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

SKIP = 77  # Meson's "skipped"
TIMEOUT_S = 60  # the grader's default --timeout: what one hang cost before each case had a deadline
# The grader's words (grader/grader/checking.cpp): a deadline made from the reference's time, and a
# sibling's short one; the deadlines themselves (grader/grader/grade.hpp) are read from the details.
FROM_REFERENCE = "the deadline came from the reference"
SIBLING = "a short deadline, as "
BUDGET_SPENT = "this grading's GPU variants have hung for "  # kGpuHangBudgetS spent
NOT_RUN = "not run: "  # a hung step's configuration after that
# The stand-in whose every GPU variant hangs: at the deadlines before the budget (each step's first
# 7 s, then 2 s a sibling) these cost about 90 s.
STEPS, CONFIGURATIONS = 8, 3
CASE_HUNG = re.compile(r"\d+x\d+ [a-z0-9-]+: no progress for ([0-9.]+) s: killed")
# What a whole grading may cost here: its start (the cases built by the reference, the sandbox)
# and each variant's hang, with room for a loaded machine; far below one --timeout per variant.
HANG_BUDGET_S = 60
GRADING_SLACK_S = 20  # a grading's own start and each runner's, beyond the deadlines it waited through


def fail(msg):
    print("FAILED:", msg)
    sys.exit(1)


def grade(grader, runner, extra, workdir):
    """Grades and returns (exit status, report, seconds it took)."""
    out = Path(workdir) / "result.json"
    cmd = [grader, "grade", "--runner", runner, "--no-perf", "--seed", "12345", "--photos", "",
           "--timeout", str(TIMEOUT_S), "--json", str(out), "--diff-dir", str(Path(workdir) / "diff"), *extra]
    print("$", " ".join(cmd), flush=True)
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
    took = time.monotonic() - start
    print(proc.stdout)
    print(f"took {took:.1f} s", flush=True)
    return proc.returncode, json.loads(out.read_text()), took


def deadline_of(variant):
    """The deadline a variant hung past, in seconds, from its detail."""
    return float(CASE_HUNG.match(variant["detail"]).group(1))


def check_timeouts(res):
    """Every graded variant (the reference aside) is TIMEOUT, its detail opening with the name of
    the case that hung: a size and a pattern ("1x4099 random"), as the quick sizes' cases are named."""
    graded = [v for v in res["variants"] if not v["reference"]]
    if not graded:
        fail("no variant was graded")
    for v in graded:
        if v["status"] != "timeout":
            fail(f"{v['name']}: {v['status']} ({v['detail']}), want timeout")
        if not CASE_HUNG.match(v["detail"]):
            fail(f"{v['name']}: the detail does not name the case that hung: {v['detail']!r}")
    return graded


def stand_in_runner(path, exercise, variants=(("cpu-hang-a", "cpu", "one step"), ("cpu-hang-b", "cpu", "one step"),
                                              ("cpu-hang-c", "cpu", "another"))):
    """A runner whose variants, (name, kind, summary), all hang after the `begin` of their first
    case; those of one summary are configurations of one step. By default three CPU variants: a
    and b of one step, c of another."""
    path.write_text(textwrap.dedent(f"""\
        #!/usr/bin/env python3
        # hang_selftest.py's stand-in runner (protocol: grader/protocol/protocol.hpp)
        import os, sys, time
        report = 3
        def send(key, value):
            os.write(report, f"{{key}}\\t{{value}}\\n".encode())
        args = sys.argv[1:]
        if args[0] == "list":
            for name, kind, summary in {list(variants)!r}:
                send("variant", "\\t".join(({exercise!r}, name, kind, summary)))
            sys.exit(0)
        if args[0] == "check":
            only = args[args.index("--only") + 1].split(",") if "--only" in args else ["0"]
            send("begin", only[0])
            time.sleep(3600)  # never answers: the grader kills it
        sys.exit(1)
        """))
    path.chmod(0o755)


def student_exercise(grader, runner, kind):
    """The exercise of the runner's first student variant of this kind: a stand-in's variants belong to it."""
    listing = subprocess.run([grader, "list", "--runner", runner], capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in listing.splitlines()]
    return next(r[3] for r in rows if len(r) > 4 and r[1] == kind and r[4] == "student")


def cpu_mode(grader, runner, glob, tmp):
    code, res, took = grade(grader, runner, ["--variants", glob, "--sizes", "quick"], tmp / "broken")
    graded = check_timeouts(res)
    for v in graded:
        if FROM_REFERENCE not in v["detail"]:
            fail(f"{v['name']}: the detail does not say where its deadline came from: {v['detail']!r}")
    if code != 1:
        fail(f"exit {code}, want 1")
    budget = sum(deadline_of(v) for v in graded) + GRADING_SLACK_S
    if took > budget or max(deadline_of(v) for v in graded) >= TIMEOUT_S:
        fail(f"the hang cost {took:.0f} s, over its deadline and {GRADING_SLACK_S} s ({budget:.0f} s), "
             f"or waited the whole --timeout of {TIMEOUT_S} s")
    print(f"a hanging CPU variant: TIMEOUT in {took:.1f} s, its case named, the deadline from the reference")

    # Siblings, with a stand-in runner.
    fake = tmp / "stand_in_runner.py"
    stand_in_runner(fake, student_exercise(grader, runner, "cpu"))
    code, res, took = grade(grader, str(fake), ["--variants", "cpu-hang-*", "--sizes", "quick"], tmp / "siblings")
    by_name = {v["name"]: v for v in res["variants"]}
    if set(by_name) - {v["name"] for v in res["variants"] if v["reference"]} != {"cpu-hang-a", "cpu-hang-b", "cpu-hang-c"}:
        fail(f"the stand-in runner's variants were not all graded: {sorted(by_name)}")
    check_timeouts(res)
    a, b, c = (by_name[n]["detail"] for n in ("cpu-hang-a", "cpu-hang-b", "cpu-hang-c"))
    # The first of each step: its first case's deadline, with the runner's start.
    for name, detail in (("cpu-hang-a", a), ("cpu-hang-c", c)):
        if FROM_REFERENCE not in detail or "runner's start" not in detail:
            fail(f"{name}: not the reference's deadline with the runner's start: {detail!r}")
    deadlines = {n: deadline_of(by_name[n]) for n in ("cpu-hang-a", "cpu-hang-b", "cpu-hang-c")}
    if SIBLING + "cpu-hang-a" not in b or not deadlines["cpu-hang-b"] < deadlines["cpu-hang-a"]:
        fail(f"cpu-hang-b, a sibling of cpu-hang-a that hung: not a shorter deadline: {b!r}")
    if deadlines["cpu-hang-c"] != deadlines["cpu-hang-a"]:
        fail(f"cpu-hang-c, of another step, did not get cpu-hang-a's deadline: {c!r}")
    # Each hang costs its deadline, plus the runner's start and the grading's own (the cases built).
    budget = sum(deadlines.values()) + GRADING_SLACK_S
    if took > budget:
        fail(f"three hangs cost {took:.0f} s, over their deadlines and {GRADING_SLACK_S} s: {budget:.0f} s")
    print(f"siblings: deadlines {deadlines}; three hangs cost {took:.1f} s")


def gpu_mode(grader, runner, glob, solution, tmp):
    if subprocess.run([grader, "device"], capture_output=True, text=True).returncode != 0:
        print("skipped: no CUDA device")
        sys.exit(SKIP)
    code, res, took = grade(grader, runner, ["--variants", glob, "--sizes", "quick,1000x1000"], tmp / "broken")
    graded = check_timeouts(res)
    if len(graded) < 2:
        fail(f"{glob} matches {len(graded)} configuration: no sibling to give the short deadline")
    first, siblings = graded[0], graded[1:]
    if FROM_REFERENCE not in first["detail"]:
        fail(f"{first['name']}: the detail does not say where its deadline came from: {first['detail']!r}")
    for v in siblings:
        if SIBLING + first["name"] not in v["detail"]:
            fail(f"{v['name']}: a sibling of {first['name']}, which hung, without the short deadline: {v['detail']!r}")
    if code != 1:
        fail(f"exit {code}, want 1")
    if took > HANG_BUDGET_S:
        fail(f"{len(graded)} deadlocked configurations cost {took:.0f} s, over {HANG_BUDGET_S} s")
    print(f"{len(graded)} deadlocked configurations: TIMEOUT in {took:.1f} s")
    # The killed runners ended their contexts: the next grading has the GPU (the same step, honest).
    code, res, _ = grade(grader, solution, ["--variants", glob, "--sizes", "quick"], tmp / "solution")
    bad = [(v["name"], v["status"], v["detail"]) for v in res["variants"] if v["kind"] == "gpu" and v["status"] != "pass"]
    if bad or code != 0:
        fail(f"after the deadlocks, the solution's {glob} do not all pass (exit {code}): {bad}")
    print(f"after the deadlocks, the solution's {glob} pass")
    every_step_hangs(grader, runner, tmp)


def every_step_hangs(grader, runner, tmp):
    """A submission whose every GPU step hangs costs at most HANG_BUDGET_S (kGpuHangBudgetS)."""
    steps = [(f"gpu-hang-{s}{c}", "gpu", f"step {s}") for s in range(STEPS) for c in "abc"[:CONFIGURATIONS]]
    fake, work = tmp / "every_step_hangs.py", tmp / "every-step"
    work.mkdir()
    stand_in_runner(fake, student_exercise(grader, runner, "gpu"), steps)
    code, res, took = grade(grader, str(fake), ["--variants", "gpu-hang-*", "--sizes", "quick"], work)
    by_name = {v["name"]: v for v in res["variants"] if not v["reference"]}
    if sorted(by_name) != sorted(n for n, _, _ in steps):
        fail(f"the stand-in runner's variants were not all graded: {sorted(by_name)}")
    wrong = [(n, v["status"]) for n, v in by_name.items() if v["status"] != "timeout"]
    if wrong or code != 1:
        fail(f"every hung variant is TIMEOUT, exit 1: {wrong}, exit {code}")
    not_run = [n for n, v in by_name.items() if v["detail"].startswith(NOT_RUN)]
    for n in not_run:
        step = n[:-1]
        if not re.search(rf"{NOT_RUN}{step}[a-z] \(a configuration of the same step\) hung", by_name[n]["detail"]):
            fail(f"{n}: not run, but its detail does not name the configuration of its step that hung: "
                 f"{by_name[n]['detail']!r}")
    ran = [v for n, v in by_name.items() if n not in not_run]
    for v in ran:
        if not CASE_HUNG.match(v["detail"]):
            fail(f"{v['name']}: the detail does not name the case that hung: {v['detail']!r}")
    short = [v["name"] for v in ran if BUDGET_SPENT in v["detail"]]
    if not not_run or not short:
        fail(f"the budget was never spent: no step's first configuration got the short deadline ({short}) or no "
             f"configuration went unrun ({not_run})")
    if took > HANG_BUDGET_S:
        fail(f"{len(steps)} hung GPU variants cost {took:.0f} s, over {HANG_BUDGET_S} s")
    print(f"every GPU step hangs: {len(steps)} variants TIMEOUT in {took:.1f} s; {len(short)} first configurations "
          f"after the budget got the short deadline, {len(not_run)} configurations not run")


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ("cpu", "gpu"):
        sys.exit(__doc__)
    mode, grader, runner, glob, solution = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for sub in ("broken", "siblings", "solution"):
            (tmp / sub).mkdir()
        if mode == "cpu":
            cpu_mode(grader, runner, glob, tmp)
        else:
            gpu_mode(grader, runner, glob, solution, tmp)
    print("ok")


if __name__ == "__main__":
    main()
