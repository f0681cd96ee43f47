#!/usr/bin/env python3
"""The reference solution timed once per machine (cli/labkit/reference_cache.py, through
grading.time_reference): a second grade reuses its report, and each thing that changes its timings
makes the next grade time it again: the reference runner rebuilt from a changed solution file, a
changed solution Python file, another GPU, another driver, fewer cores, another grading option,
and --retime-reference. A new --seed alone does not, nor another --variants. Only the rows a
student's report timed are timed, each once: a grade that timed one more row times only that one
and shows both; one that timed none times nothing. A reference run that failed is never kept;
--solution always runs all of it. The grader run is a stand-in that counts its calls and writes a report:
needs no build, writes only into a temporary folder.

    reference_cache_selftest.py
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the kit, not even __pycache__/
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from labkit import grader_cli, grading, reference_cache  # noqa: E402
from labkit.build import BuildInfo, Lab  # noqa: E402
from labkit.util import say  # noqa: E402
from checks import expect  # noqa: E402

H200 = {"available": "1", "name": "NVIDIA H200", "sms": "132", "cc_major": "9", "cc_minor": "0",
        "memory_gib": "139.8", "driver": "580.159.04", "runtime": "13.0"}
# The grader options a `grade` may be given, as grader_cli's spec lists them (name, dest, takes a value).
SPEC = [("--quick", "quick", False), ("--seed", "seed", True), ("--threads", "threads", True),
        ("--variants", "variants", True)]
ROWS = ["cpu-sequential", "cpu-openmp", "gpu-01-naive"]  # the reference runner's list
BASELINE = "cpu-sequential"  # the kit's own row, "reference" in the list: never compared


class Machine:
    """What the stand-ins answer: the probe's device, the cores, and the grader runs made."""

    def __init__(self):
        self.device = dict(H200)
        self.cores = 16
        self.runs = 0
        self.asked = []  # the rows of the last run
        self.status = "pass"


def main():
    machine = Machine()
    reference_cache.machine_device = lambda build: machine.device
    reference_cache.usable_cores = lambda: machine.cores
    reference_cache.runner_options = lambda grader, runner, sandbox: ["--runner", str(runner)]

    def run_grader(grader, runner, lab, label, out, args, variants, sandbox, log_path=None, echo=True, extra=()):
        machine.runs += 1
        machine.asked = args.variants.split(",") if args.variants else list(ROWS)
        report = {"lab": lab, "label": label, "seed": args.seed, "environment": {"gpu": machine.device.get("name", "")},
                  "variants": [{"name": n, "kind": "cpu", "status": machine.status} for n in machine.asked],
                  "performance": [{"variant": n, "width": 64, "height": 64, "kernel_ms": 1.0} for n in machine.asked]}
        path = out / f"{lab}-{label}.json"
        path.write_text(json.dumps(report))
        (out / f"{lab}-{label}.md").write_text(f"# {lab} ({label}): {', '.join(machine.asked)}\n")
        if log_path:
            Path(log_path).write_text("timing [1/1] cpu-sequential\n| variant | ms |\n")
        return dict(report, _exit=0 if machine.status == "pass" else 1, _file=str(path))

    grading.run_grader = run_grader
    grading.print_reference_log = lambda lab, log: None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "build" / "labs").mkdir(parents=True)
        (tmp / "solutions").mkdir()
        out = tmp / "results"
        out.mkdir()
        files = {name: tmp / "build" / name for name in ("labs/lab_grader", "labs/lab_solution_runner", "probe")}
        for path in files.values():
            path.write_bytes(b"\x7fELF " + path.name.encode())
        python_file = tmp / "solutions" / "track.py"
        python_file.write_text("def step(): pass\n")
        lab = Lab("lab", "labs/lab_grader", "labs/lab_runner", "labs/lab_solution_runner",
                  solution_python_code=str(tmp / "solutions"))
        build = BuildInfo(tmp / "build", [lab], cuda=True, probe="probe")

        def grade(what, want_runs, timed=("cpu-sequential", "cpu-openmp"), **options):
            """The reference beside a student's report that timed the rows timed."""
            args = argparse.Namespace(solution=False, retime_reference=False, quick=False, seed=1, threads=None,
                                      variants=None)
            vars(args).update(options)
            setattr(args, grader_cli._SPEC, SPEC)
            before = machine.runs
            student = {"performance": [{"variant": n} for n in timed]}
            rows = [{"name": n, "reference": n == BASELINE} for n in ROWS]
            report = grading.time_reference(build, lab, files["labs/lab_grader"], files["labs/lab_solution_runner"],
                                            rows, args, None, out, keep_apart=True,
                                            compared=None if args.solution else reference_cache.compared(student, rows))
            ran = machine.runs - before
            expect(ran == want_runs, f"{what}: the reference {'ran' if ran else 'was reused'}"
                   + ("" if ran == want_runs else f", want {'a run' if want_runs else 'it reused'}"))
            return report

        expect(grade("a student's report that timed nothing", 0, timed=()) is None,
               "nothing timed, nothing kept: no reference report, and no run")
        expect(grade("a starter's report, which timed only the kit's own row", 0, timed=(BASELINE,)) is None,
               "the kit's own row is not compared: no reference report, and no run")
        first = grade("the first grade", 1)
        expect(first["reference_timing"]["reused"] == "none" and first["reference_timing"]["timed_at"],
               "the first grade's report says when and where it was timed")
        expect(machine.asked == ["cpu-openmp"], f"only the step the student timed was timed ({machine.asked})")
        again = grade("the same grade again", 0)
        timing = again["reference_timing"]
        expect(timing["reused"] == "all" and timing["timed_at"] == first["reference_timing"]["timed_at"]
               and timing["gpu"]["name"] == "NVIDIA H200", "the reused report says when and on which GPU it was timed")
        grade("a student's report that timed nothing, with a row kept", 0, timed=())
        more = grade("a student who timed one more row", 1, timed=(BASELINE, "cpu-openmp", "gpu-01-naive"))
        expect(machine.asked == ["gpu-01-naive"], f"only the row not kept was timed ({machine.asked})")
        expect([v["name"] for v in more["variants"]] == ["cpu-openmp", "gpu-01-naive"]
               and {p["variant"] for p in more["performance"]} == {"cpu-openmp", "gpu-01-naive"}
               and more["reference_timing"]["reused"] == "some",
               "the report holds the kept row and the new one, and says that some were reused")
        md = (out / "lab-solution.md").read_text()
        expect(md.count("> reference solution timed ") == 2 and "cpu-openmp\n" in md and "gpu-01-naive" in md,
               "results/lab-solution.md holds both runs' tables, each saying when it was timed")
        grade("both rows again", 0, timed=("gpu-01-naive", "cpu-openmp"))
        grade("another --variants", 0, variants="gpu-01*", timed=("gpu-01-naive",))
        md = (out / "lab-solution.md").read_text()
        expect(md.startswith("> reference solution timed ") and "NVIDIA H200" in md and "reused" in md,
               "results/lab-solution.md opens with when and where the reference was timed")
        expect(json.loads((out / "lab-solution.json").read_text())["reference_timing"]["reused"] == "all",
               "results/lab-solution.json says it was reused")
        grade("a new --seed", 0, seed=2)
        grade("--retime-reference", 1, retime_reference=True)
        grade("after --retime-reference", 0)

        files["labs/lab_solution_runner"].write_bytes(b"\x7fELF rebuilt from a changed solution file")
        grade("the reference runner rebuilt from a changed solution file", 1)
        grade("that build again", 0)
        python_file.write_text("def step(): return 1\n")
        grade("a changed solution Python file", 1)
        files["labs/lab_grader"].write_bytes(b"\x7fELF a rebuilt grader")
        grade("a rebuilt grader", 1)

        machine.device = dict(H200, name="NVIDIA H100 80GB HBM3", sms="132")
        grade("another GPU", 1)
        grade("that GPU again", 0)
        machine.device = dict(machine.device, driver="590.44.01")
        grade("another driver", 1)
        machine.device = {"available": "0", "reason": "no CUDA device"}
        grade("no GPU at all", 1)
        machine.cores = 4
        grade("fewer cores to use", 1)

        grade("--quick", 1, quick=True)
        grade("--quick again", 0, quick=True)
        grade("--threads 1,2", 1, threads="1,2")
        grade("the options of before", 0)

        machine.status = "fail"
        grade("--retime-reference whose run fails", 1, retime_reference=True)
        machine.status = "pass"
        grade("after a failed reference run", 0)  # the good one of before stays kept
        machine.cores = 2
        machine.status = "fail"
        grade("a failing reference on a new key", 1)
        machine.status = "pass"
        grade("the same key after it failed (never kept)", 1)
        grade("--solution", 1, solution=True)
        expect(machine.asked == ROWS, "--solution times every row")
        grade("after --solution", 0, timed=ROWS)
        kept = sorted(p.name for p in (tmp / "build" / reference_cache.CACHE_DIR).iterdir())
        expect(all(p.startswith("lab-") for p in kept), f"kept under the build folder, one entry per key ({len(kept)})")
    say("reference cache: reused while nothing changed; timed again for each change")
    return 0


if __name__ == "__main__":
    sys.exit(main())
