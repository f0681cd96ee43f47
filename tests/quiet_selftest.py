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


if __name__ == "__main__":
    sys.exit(main())
