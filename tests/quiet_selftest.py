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
    print("all ok" if not FAILED else f"{len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
