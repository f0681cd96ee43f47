"""`labkit test`: meson test, streamed, ending in one line "N passed, M failed, K skipped"."""
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from .batch import COMPILE_CACHE_ENV
from .build import build_dir_of, ensure_configured, ninja, open_build
from .programs import no_gpu_reason
from .proc import stream
from .util import ANSI_RE, LabkitError, UsageError, say, show_cmd

# Beside the work folders, outside the kit (a compile's sandbox hides the kit's build folders).
TEST_COMPILE_CACHE = "labkit-test-compile-cache"
# One result line of meson test: " 3/12 lab:name   OK   0.52s".
TEST_RESULT_RE = re.compile(
    r"^\s*(\d+)/(\d+)\s+(.*?)\s+(OK|FAIL|SKIP|TIMEOUT|EXPECTEDFAIL|UNEXPECTEDPASS|ERROR)\b\s*(.*)$")
# meson's own summary block, left out so that our line is the last word.
MESON_SUMMARY_RE = re.compile(r"^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):\s+\d+\s*$")


class MesonOutput:
    """Passes meson test's lines through, keeping the results and holding back its summary."""

    def __init__(self):
        self.results = {}  # test number -> (name, status)
        self.held = []

    def __call__(self, line):
        plain = ANSI_RE.sub("", line).rstrip("\n")
        m = TEST_RESULT_RE.match(plain)
        if m:
            self.results.setdefault(int(m.group(1)), (m.group(3).strip(), m.group(4)))
        if MESON_SUMMARY_RE.match(plain):
            return
        if plain.startswith("Full log written to"):
            self.held.append(plain)
            return
        sys.stdout.write(line)
        sys.stdout.flush()

    def tally(self):
        """(passed, failed, skipped)"""
        statuses = [s for _, s in self.results.values()]
        passed = sum(s in ("OK", "EXPECTEDFAIL") for s in statuses)
        skipped = sum(s == "SKIP" for s in statuses)
        return passed, len(statuses) - passed - skipped, skipped


def skip_reasons(build_dir):
    """(test, the last line it printed) of each skipped test of the last run, so that a skip
    says why ("no CUDA device", "you have edited cpu_openmp.cpp", ...)."""
    log = Path(build_dir) / "meson-logs" / "testlog.json"
    reasons = []
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return reasons
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("result") == "SKIP":
            said = [l for l in str(entry.get("stdout", "")).splitlines() if l.strip()]
            why = said[-1].strip() if said else "no reason given"
            reasons.append((entry.get("name", "?"), re.sub(r"^skipped:\s*", "", why)))
    return reasons


# The GPU acceptance run (`labkit test --gpu`): every test of the gpu suite, the class
# rehearsal's GPU part among them, on one GPU node, within this budget (docs/contributing.md: every
# change to GPU code, grading, peers or sanitizing runs it before it lands).
GPU_SUITE = "gpu"
GPU_BUDGET_S = 600
# Tests run side by side on a GPU node, about one for every GPU_CORES_PER_TEST cores (a test runs
# a grader, its runners and often a compile or compute-sanitizer at once; more of them would push
# honest cases past their deadlines), those that time the GPU alone (is_parallel: false).
GPU_CORES_PER_TEST = 3
GPU_PROCESSES_MIN, GPU_PROCESSES_MAX = 2, 8


def gpu_processes():
    return max(GPU_PROCESSES_MIN, min(GPU_PROCESSES_MAX, len(os.sched_getaffinity(0)) // GPU_CORES_PER_TEST))


def cmd_test(args):
    build_dir = build_dir_of(args)
    if args.gpu and (args.cpu_only or args.suite):
        raise UsageError("--gpu runs the gpu suite as a whole: without --cpu-only or --suite")
    try:
        ensure_configured(build_dir)
        # --suite: meson test builds what the chosen tests depend on (their `depends`), and no
        # more: a lab's suite does not wait for the other labs' CUDA objects.
        ok = True if args.suite else ninja(build_dir, jobs=args.jobs)[0]
    except LabkitError as e:
        say(f"labkit: {e}")
        ok = False
    if not ok:
        say("the build failed: no test ran")
        say("0 passed, 1 failed, 0 skipped")
        return 1
    cmd = ["meson", "test", "-C", str(build_dir), "--print-errorlogs"]
    if args.gpu:
        why = no_gpu_reason(open_build(build_dir))
        if why:
            say(f"--gpu is the GPU acceptance run, and this machine cannot run it: {why}. "
                "Run it on a GPU node (docs/contributing.md)")
            say("0 passed, 1 failed, 0 skipped")
            return 1
        cmd += ["--suite", GPU_SUITE, "--num-processes", str(gpu_processes())]
    if args.cpu_only:
        cmd += ["--suite", "cpu"]
    for s in args.suite or []:
        cmd += ["--suite", s]
    # One compile cache for every class run of the tests (each has a work folder of its own, and
    # they hand in the same files): batch.compile_cache.
    os.environ.setdefault(COMPILE_CACHE_ENV, str(Path(tempfile.gettempdir()) / f"{TEST_COMPILE_CACHE}-{os.getuid()}"))
    show_cmd(cmd)
    started = time.monotonic()
    output = MesonOutput()
    try:
        rc, _ = stream(cmd, output)
    except LabkitError as e:  # meson missing: still end on the one line scripts look for
        say(f"labkit: {e}")
        say("0 passed, 1 failed, 0 skipped")
        return 1
    for line in output.held:
        say(line)
    for name, why in skip_reasons(build_dir):
        say(f"skipped: {name}: {why}")
    passed, failed, skipped = output.tally()
    if rc != 0 and failed == 0:
        failed = 1  # meson itself failed (no tests matched the suite, a build error, ...)
        say(f"meson test exited with status {rc}")
    if args.gpu:
        took = time.monotonic() - started
        within = took <= GPU_BUDGET_S
        say(f"GPU acceptance run: {took / 60:.1f} min, {'within' if within else 'OVER'} its budget of "
            f"{GPU_BUDGET_S // 60} min")
        failed += 0 if within else 1
    say(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0
