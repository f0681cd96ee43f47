#!/usr/bin/env python3
"""What a user would otherwise pick for an integral image, timed the way the grader times ours.

  GPU: PyTorch, torch.cumsum(torch.cumsum(x, 1), 0) on int32 (two library scans; kernels only,
       CUDA events, L2 flushed before every run, median).
  CPU: OpenCV's cv2.integral (8-bit in, 32-bit signed out, with its extra zero row and column).

Prints a Markdown table; --json writes the numbers. Needs torch (with CUDA) and/or cv2; whatever
is missing is reported and skipped.
"""
import argparse
import json
import statistics
import sys
import time


def time_torch(sizes, runs):
    import torch
    if not torch.cuda.is_available():
        return {"error": "torch sees no CUDA device"}
    dev = torch.device("cuda")
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "ms": {}}
    for n in sizes:
        x = torch.randint(0, 256, (n, n), dtype=torch.uint8, device=dev)
        f = lambda: torch.cumsum(torch.cumsum(x, 1, dtype=torch.int32), 0, dtype=torch.int32)
        ref = f()  # warm-up, and a check that the library computes what we do (mod 2^32)
        want = x.to(torch.int64).cumsum(1).cumsum(0)
        assert torch.equal(ref.to(torch.int64) & 0xFFFFFFFF, want & 0xFFFFFFFF)
        samples = []
        for _ in range(runs):
            flush.zero_()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            f()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop))
        out["ms"][n] = statistics.median(samples)
    return out


def time_opencv(sizes, runs):
    import numpy as np
    import cv2
    out = {"opencv": cv2.__version__, "threads": cv2.getNumThreads(), "ms": {}}
    rng = np.random.default_rng(1)
    for n in sizes:
        x = rng.integers(0, 256, (n, n), dtype=np.uint8)
        cv2.integral(x, sdepth=cv2.CV_32S)
        samples = []
        for _ in range(runs):
            t0 = time.perf_counter()
            cv2.integral(x, sdepth=cv2.CV_32S)
            samples.append((time.perf_counter() - t0) * 1e3)
        out["ms"][n] = statistics.median(samples)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1024,2048,4096,8192")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    results = {}
    for name, fn in (("torch_cumsum_gpu", time_torch), ("opencv_integral_cpu", time_opencv)):
        try:
            results[name] = fn(sizes, a.runs)
        except Exception as e:  # a missing library is a line in the report, not a crash
            results[name] = {"error": f"{type(e).__name__}: {e}"}
    print("| resolution | " + " | ".join(results) + " |")
    print("| --- |" + " ---: |" * len(results))
    for n in sizes:
        cells = []
        for r in results.values():
            cells.append(f"{r['ms'][n]:.4f} ms" if "ms" in r else "—")
        print(f"| {n}² | " + " | ".join(cells) + " |")
    for name, r in results.items():
        print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in r.items() if k != "ms"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
