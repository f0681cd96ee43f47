"""check, time and dry for one Python variant: the Python twin of grader/runner/runner.hpp and
grader/runner/gpu_harness.hpp. The input and output live in guarded device images owned here; the
student's function only launches work on them."""
import json
import os
import time

import numpy as np

from . import protocol
from .context import Context
from .images import GuardedImage, Scratch
from .student import Todo, load_module

# Read before every timed run, as the kit's common/l2_flush.cu does: a read sweep leaves the L2
# holding clean lines, where a memset would leave dirty ones whose write-back the timed run pays.
L2_FLUSH_BYTES = 256 << 20  # more than any GPU's L2 (H200: 60 MB)


class Contract:
    """What the exercise takes and gives, as the grader's `contract` says (the pyrunner's
    --contract file): the pixel types (numpy's names) and the output's size."""

    def __init__(self, path, exercise):
        with open(path, encoding="utf-8") as f:
            facts = next((e for e in json.load(f) if e["exercise"] == exercise), None)
        if facts is None:
            raise RuntimeError(f"the grader's contract has no exercise '{exercise}'")
        self.IN, self.OUT, self.rule = facts["in"], facts["out"], facts["output_rule"]

    def output_shape(self, height, width):
        """(height, width) of the output of a height x width input."""
        size = [a * width + b * height + c for a, b, c in (self.rule["width"], self.rule["height"])]
        return size[1], size[0]


class Variant:
    """One row of a lab's track: its driver, its student file, the lab's entry point, and the
    exercise's contract."""

    def __init__(self, track, row, code_dir, contract):
        self.name, self.driver_name, self.file, self.summary = row
        self.track, self.code_dir, self.contract = track, code_dir, contract
        self.kernels = None

    def load(self, driver):
        """Imports the student file (after the driver, so that a simulator is set up first)."""
        self.driver = driver
        path = os.path.join(self.code_dir, self.file)
        if not os.path.exists(path):
            raise Todo(f"{self.file} is not there (python/ of the code base)")
        self.module = load_module(path)
        for function in ("compile", self.track.ENTRY):
            if not callable(getattr(self.module, function, None)):
                raise RuntimeError(f"{self.file} defines no function {function}()")

    def source(self):
        path = os.path.join(self.code_dir, self.track.KERNELS)
        if self.driver_name == "numba" or not os.path.exists(path):
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()

    def call(self, ctx, image, out):
        try:
            if self.kernels is None:
                self.kernels = self.module.compile(self.source())
            getattr(self.module, self.track.ENTRY)(self.kernels, ctx, image, out)
        except NotImplementedError as e:
            raise Todo(todo_text(e, self.file)) from e


def todo_text(error, file):
    """The TODO's own words: Numba's simulator puts the raising thread's tid and ctaid first."""
    text = str(error)
    return text[text.index("TODO"):] if "TODO" in text else (text or f"{file}: not written yet")


class Buffers:
    """The input, the output and the scratch images of one image size."""

    def __init__(self, variant, height, width):
        d = variant.driver
        self.driver, self.variant = d, variant
        self.input = GuardedImage(d, (height, width), variant.contract.IN, "the input")
        self.output = GuardedImage(d, variant.contract.output_shape(height, width), variant.contract.OUT, "the output")
        self.scratch = Scratch(d)
        self.ctx = Context(d, self.scratch)

    def fits(self, height, width):
        return self.input.shape == (height, width)

    def load(self, host):
        """Poisons everything, then copies the input in."""
        self.input.poison()
        self.poison_outputs()
        self.driver.to_device(self.input.array, host)
        self.driver.synchronize()

    def poison_outputs(self):
        self.output.poison()
        self.scratch.poison_all()

    def run(self, marks=None):
        self.ctx._start_marks(marks)
        self.variant.call(self.ctx, self.input.array, self.output.array)

    def guard_report(self):
        return self.output.guard_report() or self.input.guard_report() or self.scratch.guard_report()

    def download(self):
        return self.driver.to_host(self.output.array)


def check(variant, manifest, answers, only, report):
    buffers = None
    for i, (path, _params) in enumerate(protocol.read_manifest(manifest)):
        if only and i not in only:
            continue
        report.send("begin", str(i))
        host = protocol.read_raw(path, variant.contract.IN)
        h, w = host.shape
        if buffers is None or not buffers.fits(h, w):
            buffers = None  # free the old images before making the new ones
            buffers = Buffers(variant, h, w)
        buffers.load(host)
        buffers.run()
        variant.driver.synchronize()
        guard = buffers.guard_report()
        protocol.write_raw(os.path.join(answers, protocol.answer_name(i)), buffers.download())
        report.send("done", f"{i}\t{guard}")


class Timer:
    def __init__(self, driver):
        self.d = driver
        self.flush = driver.empty(L2_FLUSH_BYTES, np.uint8)
        self.start, self.stop = driver.event(), driver.event()

    def kernels(self, buffers):
        """One run: (total ms, [stage ms]) from events, the L2 flushed first."""
        d = self.d
        d.read_all(self.flush)
        start, stop, marks = self.start, self.stop, []
        d.record(start)
        buffers.run(marks)
        d.record(stop)
        total = d.elapsed_ms(start, stop)
        stages, before = [], start
        for mark in marks:
            stages.append(d.elapsed_ms(before, mark))
            before = mark
        return total, stages


def time_variant(variant, generator, patterns, sizes, policy, answers, report):
    """`runner time` (grader/protocol/protocol.hpp): every run's seed asked at its start, and after every
    timed run, untimed, whether its output is kept for the grader to check."""
    d = variant.driver
    timer = Timer(d)
    first_ms = None
    for pattern in patterns:
        for n in sizes:
            report.send("begin", f"{pattern} {n}x{n}")
            buffers = Buffers(variant, n, n)
            fresh = lambda run: generator.gray(pattern, n, n, int(report.ask("seed", str(run))))  # noqa: E731

            def keep(output):
                answer = report.ask("keep", f"{pattern}\t\t{n}\t{n}")
                if answer != "-" and answers:
                    protocol.write_raw(os.path.join(answers, protocol.answer_name(int(answer))), output())

            buffers.load(fresh(-1))
            wall = time.perf_counter()
            buffers.run([])  # warm-up: the first call compiles (JIT) and loads the module; makes the stage events
            d.synchronize()
            if first_ms is None:
                first_ms = (time.perf_counter() - wall) * 1e3

            totals, late, stages = [], [], []
            wall = time.perf_counter()
            while policy.more(len(totals), (time.perf_counter() - wall) * 1e3):
                buffers.load(fresh(len(totals)))
                total, stage = timer.kernels(buffers)
                idle = time.perf_counter()
                d.synchronize()
                late.append((time.perf_counter() - idle) * 1e3)
                totals.append(total)
                stages.append(stage)
                keep(buffers.download)

            e2e = []
            host_in = d.pinned((n, n), variant.contract.IN)
            host_out = d.pinned(variant.contract.output_shape(n, n), variant.contract.OUT)
            wall = time.perf_counter()
            while policy.more(len(e2e), (time.perf_counter() - wall) * 1e3):
                host_in[...] = fresh(len(totals) + len(e2e))
                buffers.poison_outputs()
                d.read_all(timer.flush)
                start, stop = timer.start, timer.stop
                d.record(start)
                d.to_device(buffers.input.array, host_in)
                buffers.run()
                d.to_host(buffers.output.array, host_out)
                d.record(stop)
                e2e.append(d.elapsed_ms(start, stop))
                keep(buffers.download)

            stage_ms = []
            if stages and len(stages[0]) > 1 and all(len(s) == len(stages[0]) for s in stages):
                stage_ms = [protocol.summarize([s[k] for s in stages])[0] for k in range(len(stages[0]))]
            report.send("perf", protocol.perf_fields(pattern, "", n, n, protocol.summarize(totals),
                                                     protocol.summarize(e2e)[0], protocol.summarize(late)[0],
                                                     first_ms, stage_ms))
            del buffers


def dry(variant, report):
    """Without a GPU: is the variant written? The student's functions are called with no arrays;
    a step not written yet raises NotImplementedError (TODO), a written one fails on the missing
    arrays and is "compiled" (loaded and called, not checked)."""
    try:
        kernels = variant.module.compile(variant.source())
        getattr(variant.module, variant.track.ENTRY)(kernels, None, None, None)
    except NotImplementedError as e:
        raise Todo(todo_text(e, variant.file)) from e
    except Exception:  # noqa: BLE001  (anything else: written, and not runnable here)
        pass
    report.send("compiled", variant.name)
