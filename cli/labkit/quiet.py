"""A quiet place for timing in a class run. The cores are split in two, whole physical cores each:
one part for the gradings (their checks side by side, each timing alone: Turns), the other for
the builds of the next submissions. Without it the kit's own builds made the noise: the
reference's cpu-sequential varied 21-28% between calls on a 16-core node, and every CPU group read
"not graded: machine too noisy".

Each thread of grade-all's pools is pinned once (Linux affinity is per thread, and a process
inherits its parent thread's), so every grader, runner and compiler it starts stays on its side:
no cgroup, no root, the same on a Slurm task's allocation. The grader reads the cores it may use
(labkit::cores(), from its affinity), so its thread sweep stops at the timing side's size."""

import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SIBLINGS = "/sys/devices/system/cpu/cpu{}/topology/thread_siblings_list"
# The timing side's share of the cores, when --threads does not say how many a timing needs:
# half, so that a class builds as fast as it grades (a build of one submission and the grading of
# another take about as long), and at least TIMING_LEAST: a team of 2 is what shows a variant that
# ignores the threads it is given (tests/corpus/ignores_threads); a machine of 2 cores then times
# on both, beside the builds, as it did before the split.
TIMING_SHARE = 2
TIMING_LEAST = 2


def _cpu_list(text):
    """"0-3,8,10-11" -> [0, 1, 2, 3, 8, 10, 11]."""
    out = []
    for part in text.strip().split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out += range(int(lo), int(hi) + 1)
        elif part:
            out.append(int(part))
    return out


def physical_cores(cpus):
    """cpus grouped by physical core (hyper-threads of one core together), in cpu order: a timed
    thread must not share a core's pipelines with a compiler."""
    groups, seen = [], set()
    for cpu in sorted(cpus):
        if cpu in seen:
            continue
        try:
            group = [c for c in _cpu_list(Path(SIBLINGS.format(cpu)).read_text()) if c in cpus]
        except (OSError, ValueError):
            group = [cpu]
        group = sorted(set(group) | {cpu})
        seen.update(group)
        groups.append(group)
    return groups


def most_threads(threads):
    """The largest thread count of a --threads value ("1,2,4"), or None."""
    try:
        counts = [int(t) for t in str(threads or "").split(",") if t.strip()]
    except ValueError:
        return None
    return max(counts) if counts else None


@dataclass
class Split:
    timing: set      # the cores gradings run on, one at a time
    building: set    # the cores builds run on
    note: str = ""   # why the two sides share cores, when they do

    @property
    def quiet(self):
        return not (self.timing & self.building)

    def describe(self):
        if not self.quiet:
            return f"timing shares the cores with builds ({self.note})"
        return (f"timing on {len(self.timing)} core(s) of its own ({_ranges(self.timing)}), "
                f"builds on the other {len(self.building)} ({_ranges(self.building)})")


def split_cores(threads=None, cpus=None):
    """The Split of cpus (default: this process's): enough whole cores for the largest --threads
    count (default: half of them) to time on, the rest for builds. Where there are too few to
    leave builds any, both sides share them all, and note says so."""
    cpus = set(cpus if cpus is not None else os.sched_getaffinity(0))
    groups = physical_cores(cpus)
    wanted = most_threads(threads) or max(TIMING_LEAST, len(cpus) // TIMING_SHARE)
    timing = set()
    for group in groups[::-1]:  # from the top: cpu 0 takes the system's interrupts and daemons
        if len(timing) >= wanted:
            break
        timing.update(group)
    if len(timing) >= len(cpus):
        return Split(cpus, cpus, f"{len(cpus)} core(s) here, and timing needs {wanted}")
    return Split(timing, cpus - timing)


def _ranges(cpus):
    cpus, out = sorted(cpus), []
    for c in cpus:
        if out and c == out[-1][1] + 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)


def pin(cpus):
    """Pins the calling thread (and whatever it starts from now on) to cpus."""
    os.sched_setaffinity(0, cpus)


@contextmanager
def pinned(cpus):
    """The calling thread pinned to cpus for a while."""
    before = os.sched_getaffinity(0)
    pin(cpus)
    try:
        yield
    finally:
        pin(before)


class Turns:
    """The GPU and the timing cores between a class run's gradings: checks and sanitizer runs
    take them shared (side by side: a check's answers are the same whatever runs beside it), a
    timing alone. A timing that waits goes before any check that asks after it, so that no timing
    waits for ever behind a stream of checks."""

    def __init__(self):
        self._changed = threading.Condition()
        self._sharing = 0
        self._alone = False
        self._waiting = 0

    @contextmanager
    def shared(self):
        with self._changed:
            self._changed.wait_for(lambda: not self._alone and not self._waiting)
            self._sharing += 1
        try:
            yield
        finally:
            with self._changed:
                self._sharing -= 1
                self._changed.notify_all()

    @contextmanager
    def alone(self):
        with self._changed:
            self._waiting += 1
            self._changed.wait_for(lambda: not self._alone and not self._sharing)
            self._waiting -= 1
            self._alone = True
        try:
            yield
        finally:
            with self._changed:
                self._alone = False
                self._changed.notify_all()
