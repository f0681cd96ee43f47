"""A class run's quiet cores (cli/labkit/quiet.py): timing and builds on cores of their own, whole
physical cores each, and what a pinned thread starts stays on its side."""
import concurrent.futures as futures
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from labkit import quiet  # noqa: E402

FAILED = []


def expect(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        FAILED.append(what)


def main():
    node = set(range(16))
    s = quiet.split_cores(None, node)
    expect(s.quiet and len(s.timing) == 8 and s.timing | s.building == node,
           f"16 cores: half for timing, half for builds ({s.describe()})")
    s = quiet.split_cores("1,2,4", node)
    expect(s.quiet and len(s.timing) == 4, f"--threads 1,2,4 times on 4 cores of its own ({s.describe()})")
    s = quiet.split_cores("1,2,4", {0, 1})
    expect(not s.quiet and "2 core(s) here, and timing needs 4" in s.describe(),
           f"too few cores: both sides share them, and it says why ({s.describe()})")
    real = quiet.physical_cores(os.sched_getaffinity(0))
    expect(sorted(c for g in real for c in g) == sorted(os.sched_getaffinity(0)),
           f"this machine's cores, by physical core: {real}")
    # Linux affinity is per thread, and what a thread starts inherits it: a pool pinned at its
    # threads' start keeps every grader and compiler it runs on its side.
    mine = sorted(os.sched_getaffinity(0))
    side = {mine[-1]}
    probe = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
    with futures.ThreadPoolExecutor(1, initializer=quiet.pin, initargs=(side,)) as pool:
        got = pool.submit(lambda: subprocess.run(probe, capture_output=True, text=True).stdout.strip()).result()
    expect(got == str(sorted(side)), f"a child of a pinned thread runs on its cores: {got}")
    expect(sorted(os.sched_getaffinity(0)) == mine, "the main thread is not pinned by the pool")
    with quiet.pinned(side):
        inside = sorted(os.sched_getaffinity(0))
    expect(inside == sorted(side) and sorted(os.sched_getaffinity(0)) == mine, "pinned() pins for a while")
    check_turns()
    check_merge()
    check_class_start()
    print("all ok" if not FAILED else f"{len(FAILED)} failed")
    return 1 if FAILED else 0


def check_turns():
    """Checks side by side, a timing alone, and a timing that waits goes first."""
    import threading
    import time
    turns, log, lock = quiet.Turns(), [], threading.Lock()

    def hold(kind, name, seconds):
        with (turns.shared() if kind == "check" else turns.alone()):
            with lock:
                log.append(("start", name))
            time.sleep(seconds)
            with lock:
                log.append(("end", name))

    first = threading.Thread(target=hold, args=("check", "check-1", 0.3))
    second = threading.Thread(target=hold, args=("check", "check-2", 0.3))
    first.start(), second.start()
    time.sleep(0.05)
    timing = threading.Thread(target=hold, args=("timing", "timing", 0.2))
    timing.start()
    time.sleep(0.05)
    late = threading.Thread(target=hold, args=("check", "check-3", 0.05))
    late.start()
    for t in (first, second, timing, late):
        t.join()
    order = [f"{what} {name}" for what, name in log]
    expect(order.index("start check-2") < order.index("end check-1"), f"two checks run side by side: {order}")
    expect(order.index("start timing") > max(order.index("end check-1"), order.index("end check-2"))
           and order.index("end timing") < order.index("start check-3"),
           f"a timing runs alone, and a check that asks after it waits for it: {order}")


def check_merge():
    """A check run's report with its timing run's timings (reports.merge_timing)."""
    from labkit import reports
    checked = {"variants": [{"name": "cpu-sequential", "status": "pass", "reference": True, "flags": [], "notes": []},
                            {"name": "a", "status": "pass", "flags": [], "notes": ["n1"]},
                            {"name": "b", "status": "pass", "flags": [], "notes": []},
                            {"name": "c", "status": "fail", "detail": "wrong", "flags": [], "notes": []}],
               "performance": [], "settled_error": 0.05}
    timed = {"variants": [{"name": "a", "status": "skipped", "detail": "not checked (--no-check)",
                           "flags": ["kept 3.0 threads busy when given 1"], "notes": ["n2"]},
                          {"name": "b", "status": "fail", "detail": "a timed run's output was wrong", "flags": [],
                           "notes": []}],
             "performance": [{"variant": "a", "width": 8, "height": 8, "kernel_ms": 1.0}], "settled_error": 0.05}
    merged = {v["name"]: v for v in reports.merge_timing(checked, timed)["variants"]}
    expect(merged["a"]["status"] == "pass" and merged["a"]["flags"] == ["kept 3.0 threads busy when given 1"]
           and merged["a"]["notes"] == ["n1", "n2"], f"a timed variant keeps its verdict, and gains its timing's "
           f"flags and notes: {merged['a']}")
    expect(merged["b"]["status"] == "fail" and "output was wrong" in merged["b"]["detail"],
           f"a wrong output while timed fails it: {merged['b']}")
    expect(merged["c"]["detail"] == "wrong" and checked["performance"] == timed["performance"],
           "an untimed variant is as checked; the timings are the timing run's")


def check_class_start():
    """A class run's start (batch.Pipeline.run): the reference timed while the kit's objects and
    the first submission build, where the split gives them cores of their own; every build after
    the reference's timing where it does not; a reference timing that failed is not kept for the
    next run, and one cut short by an interrupt keeps nothing."""
    import tempfile
    import threading
    import time
    from types import SimpleNamespace
    from labkit import batch, reports

    def pipeline(tmp, split):
        pipe = object.__new__(batch.Pipeline)
        pipe.jobs, pipe.cores, pipe.timing, pipe.stopping, pipe.prepared = 1, split, True, False, None
        pipe.labs, pipe.key, pipe.references, pipe.solution_runners = ["lab"], "key", {}, {"lab": "runner"}
        pipe.out, pipe.args, pipe.graders, pipe.kit_variants, pipe.sandbox = Path(tmp), SimpleNamespace(force=False), \
            {"lab": "grader"}, {"lab": []}, None
        return pipe

    log, lock = [], threading.Lock()

    def note(what):
        with lock:
            log.append(what)

    def slow_reference(*_args, **_kw):
        note("reference starts")
        time.sleep(0.3)
        note("reference ends")
        return {"_file": "r.json", "variants": []}

    real_grader = batch.run_grader
    cpus = set(os.sched_getaffinity(0))
    try:
        for own_cores in (False, True):  # a split that shares the cores (2 of them), one that does not
            with tempfile.TemporaryDirectory() as tmp:
                batch.run_grader = slow_reference
                pipe = pipeline(tmp, SimpleNamespace(quiet=own_cores, timing=cpus, building=cpus))
                log.clear()
                pipe.share_kit_objects = lambda: note("kit built")
                pipe.build = lambda name, *_: note(f"{name} built") or name
                pipe.grade = lambda name: note(f"{name} graded") or {"name": name, "labs": {}, "seconds": 0.0,
                                                                     "notes": [], "source": ""}
                pipe.run([("alice", None, "k", "alice")])
                if not own_cores:
                    expect(log.index("reference ends") < log.index("kit built") < log.index("alice built"),
                           f"cores shared by timing and builds: the builds, the kit's too, after the reference ({log})")
                else:
                    expect(log.index("alice built") < log.index("reference ends") < log.index("alice graded"),
                           f"cores of their own: the kit and the first build beside the reference's timing ({log})")
        with tempfile.TemporaryDirectory() as tmp:
            batch.run_grader = lambda *_a, **_k: reports.placeholder("lab", "solution", [{"name": "v"}], "error",
                                                                     "it crashed")
            pipe = pipeline(tmp, SimpleNamespace(quiet=True, timing=cpus, building=cpus))
            pipe.grade_references()
            expect(not (Path(tmp) / "reference" / "lab.json").exists() and "lab" in pipe.references,
                   "a reference timing that failed is used by this run and not kept for the next")
            pipe = pipeline(tmp, SimpleNamespace(quiet=True, timing=cpus, building=cpus))
            batch.run_grader = lambda *_a, **_k: (setattr(pipe, "stopping", True), {"_file": "r.json"})[1]
            pipe.grade_references()
            expect(not (Path(tmp) / "reference" / "lab.json").exists() and not pipe.references,
                   "one cut short by an interrupt keeps nothing")
    finally:
        batch.run_grader = real_grader


if __name__ == "__main__":
    sys.exit(main())
