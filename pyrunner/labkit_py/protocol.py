"""Files and report lines of harness/protocol/protocol.hpp, from Python: the same bytes as the C++ side."""
import os
import struct

import numpy as np

RAW_MAGIC = b"LKRAW01\0"
RAW_HEADER = struct.Struct("<8sIIII")  # magic, width, height, element size, reserved


def read_manifest(path):
    """[(input file, params text)] in case order."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t") + [""]
            entries.append((fields[0], fields[1]))
    return entries


def read_raw(path, dtype):
    """A raw image file as a dense (height, width) array, its header and length checked."""
    dtype = np.dtype(dtype)
    with open(path, "rb") as f:
        head = f.read(RAW_HEADER.size)
        if len(head) != RAW_HEADER.size:
            raise RuntimeError(f"malformed input {os.path.basename(path)}: no raw-image header")
        magic, width, height, elem, _ = RAW_HEADER.unpack(head)
        if magic != RAW_MAGIC or elem != dtype.itemsize:
            raise RuntimeError(f"malformed input {os.path.basename(path)}")
        data = np.fromfile(f, dtype=dtype, count=width * height)
    if data.size != width * height:
        raise RuntimeError(f"short input {os.path.basename(path)}")
    return data.reshape(height, width)


def write_raw(path, image):
    height, width = image.shape
    with open(path, "wb") as f:
        f.write(RAW_HEADER.pack(RAW_MAGIC, width, height, image.dtype.itemsize, 0))
        np.ascontiguousarray(image).tofile(f)


def answer_name(index):
    return f"{index:06d}.out"


def perf_fields(pattern, params, width, height, stats, e2e_ms, late_ms, first_ms, stage_ms):
    """One perf line's value of a GPU variant (no CPU time, noise or demand: CPU timings' only), field for
    field as protocol::encode(PerfLine)."""
    ms, lo, hi, runs = stats
    fixed = [pattern, params, str(width), str(height), "0", f"{ms:.6f}", f"{lo:.6f}", f"{hi:.6f}", str(runs),
             f"{e2e_ms:.6f}", "0", f"{late_ms:.6f}", f"{first_ms:.6f}", "0", "0"]
    return "\t".join(fixed + [f"{m:.6f}" for m in stage_ms])


def summarize(samples):
    """(median, min, max, runs), as labkit::summarize."""
    s = sorted(samples)
    n = len(s)
    if n == 0:
        return 0.0, 0.0, 0.0, 0
    median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return median, s[0], s[-1], n


class RunPolicy:
    """labkit::RunPolicy: 5 to 50 runs, about 400 ms a measurement, or a fixed count."""
    MIN_RUNS, MAX_RUNS, TARGET_MS = 5, 50, 400.0

    def __init__(self, fixed_runs=0):
        self.fixed_runs = fixed_runs

    def more(self, done, total_ms):
        if self.fixed_runs > 0:
            return done < self.fixed_runs
        return done < self.MIN_RUNS or (done < self.MAX_RUNS and total_ms < self.TARGET_MS)
