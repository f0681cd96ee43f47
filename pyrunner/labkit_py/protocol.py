"""Files and report lines of grader/protocol/protocol.hpp, from Python: the same bytes as the C++ side,
from the grader that speaks it. The grader puts the protocol's facts beside this package, as JSON
(protocol.json, written by grader/grader/kit_facts.cpp from the headers), with its other files."""
import json
import os
import struct
from pathlib import Path

import numpy as np

_PROTOCOL = json.loads((Path(__file__).resolve().parents[1] / "protocol.json").read_text())
_RAW = _PROTOCOL["raw_header"]
RAW_MAGIC = _RAW["magic"].encode().ljust(_RAW["magic_bytes"], b"\0")
# The magic, then the header's 32-bit fields (width, height, element size, reserved), little-endian.
RAW_HEADER = struct.Struct(f"<{_RAW['magic_bytes']}s{len(_RAW['u32_fields'])}I")
assert RAW_HEADER.size == _RAW["bytes"], "protocol.json's raw header does not add up"
_ANSWER = _PROTOCOL["answer_name"]
PERF_FIELDS = tuple(_PROTOCOL["perf_fields"])  # a perf line's fixed fields, in order; the stages follow
_POLICY = _PROTOCOL["run_policy"]


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
    return f"{index:0{_ANSWER['digits']}d}{_ANSWER['suffix']}"


def perf_fields(pattern, params, width, height, stats, e2e_ms, late_ms, first_ms, stage_ms):
    """One perf line's value of a GPU variant (no CPU time, noise or demand: CPU timings' only), field for
    field as protocol::encode(PerfLine)."""
    ms, lo, hi, runs = stats
    decimal = {"ms": ms, "min_ms": lo, "max_ms": hi, "e2e_ms": e2e_ms, "late_ms": late_ms, "first_ms": first_ms}
    text = {"pattern": pattern, "params": params, "width": str(width), "height": str(height), "runs": str(runs),
            **{k: f"{v:.6f}" for k, v in decimal.items()}}
    fixed = [text.get(name, "0") for name in PERF_FIELDS]  # threads, cpu_ms, noise, demand_ms: 0 for GPU
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
    MIN_RUNS, MAX_RUNS, TARGET_MS = _POLICY["min_runs"], _POLICY["max_runs"], _POLICY["target_ms"]

    def __init__(self, fixed_runs=0):
        self.fixed_runs = fixed_runs

    def more(self, done, total_ms):
        if self.fixed_runs > 0:
            return done < self.fixed_runs
        return done < self.MIN_RUNS or (done < self.MAX_RUNS and total_ms < self.TARGET_MS)
