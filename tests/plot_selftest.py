#!/usr/bin/env python3
"""`labkit plot` on a hand-made report: Lab 3-like (two timed parameter sets), CPU variants at
several thread counts, GPU variants with their % of copy bandwidth, and a peers file as
tools/bench_alternatives.py writes it. With matplotlib somewhere on this machine: three PNGs per
parameter set, named for it, real PNGs; without: exit 1 with how to install it, no traceback.
Writes only into a temporary folder.

    plot_selftest.py
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
KIT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(KIT / "cli"))
from labkit.draw import best_times, floor_bytes_per_pixel, peer_series, python_with_matplotlib  # noqa: E402
from checks import expect  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
COPY_GBPS, FLOOR = 3000.0, 8.0


def perf(variant, kind, params, n, ms, threads=1, exercise="convolution"):
    p = {"variant": variant, "exercise": exercise, "kind": kind, "pattern": "random", "params": params,
         "width": n, "height": n, "threads": threads, "kernel_ms": ms, "e2e_ms": ms}
    if kind == "gpu":
        p["pct_copy_min_bytes"] = 100 * FLOOR * n * n / (ms * 1e-3) / 1e9 / COPY_GBPS
    return p


def report():
    rows = []
    for params, scale in (("k=3", 1.0), ("k=25", 20.0)):
        for n in (1024, 2048, 4096):
            px = n * n / 1e6
            rows += [perf("cpu-sequential", "cpu", params, n, 10 * px * scale),
                     perf("cpu-openmp", "cpu", params, n, 4 * px * scale, threads=1),
                     perf("cpu-openmp", "cpu", params, n, 1 * px * scale, threads=8),
                     perf("gpu-01-global", "gpu", params, n, 0.02 * px * scale),
                     perf("gpu-03-tiled", "gpu", params, n, 0.005 * px * scale)]
    # A second exercise (as Lab 1's transpose): its own plots, against its own reference.
    rows += [perf("transpose-cpu", "cpu", "", n, 3.0, exercise="transpose") for n in (1024, 2048)]
    rows += [perf("transpose-naive", "gpu", "", n, 0.3, exercise="transpose") for n in (1024, 2048)]
    return {"lab": "convolution", "label": "solution", "environment": {"gpu": "Test GPU", "cpu": "Test CPU",
            "threads": 8, "copy_gbps": COPY_GBPS, "date": "2026-11-23T10:00:00Z"},
            "variants": [{"name": "cpu-sequential", "exercise": "convolution", "reference": True, "status": "pass"},
                         {"name": "transpose-cpu", "exercise": "transpose", "reference": True, "status": "pass"}],
            "performance": rows}


def main():
    r = report()
    times, kinds, pct = best_times(r)
    expect(sorted(times) == [("convolution", "random", "k=25"), ("convolution", "random", "k=3"),
                             ("transpose", "random", "")], f"one series set per exercise and parameter: {sorted(times)}")
    expect(times[("convolution", "random", "k=3")]["cpu-openmp"][1024] == 1 * 1024 * 1024 / 1e6,
           "a CPU variant at its best thread count")
    expect(abs(floor_bytes_per_pixel(r) - FLOOR) < 1e-6, "the floor's bytes per pixel, from the report's own %")
    peers = {"torch_conv2d_gpu": {"ms": {"k=3 2048": 0.1, "k=25 2048": 1.0}}, "broken_gpu": {"error": "no torch"}}
    expect(peer_series(peers, ("random", "k=3")) == {"torch_conv2d_gpu": {2048: 0.1}}, "peers' rows go to their parameter")
    with tempfile.TemporaryDirectory(prefix="labkit-plot-") as tmp:
        tmp = Path(tmp)
        (tmp / "r.json").write_text(json.dumps(r))
        (tmp / "peers.json").write_text(json.dumps(peers))
        proc = subprocess.run([str(KIT / "labkit"), "plot", "--reports", str(tmp / "r.json"), "--peers",
                               str(tmp / "peers.json"), "--out", str(tmp / "plots")], capture_output=True, text=True,
                              timeout=600)
        text = proc.stdout + proc.stderr
        print(text)
        expect("Traceback" not in text, "labkit plot ends without a traceback")
        if python_with_matplotlib() is None:
            expect(proc.returncode == 1 and "python3-matplotlib" in text,
                   "without matplotlib: exit 1, and how to install it")
            print("all ok (no matplotlib here: the message was checked, not the drawing)")
            return 0
        expect(proc.returncode == 0, f"exit 0 ({proc.returncode})")
        want = {f"convolution-solution-{tag}-{what}.png" for tag in ("random-k=3", "random-k=25", "transpose-random")
                for what in ("time", "speedup", "bandwidth")}
        got = {p.name for p in (tmp / "plots").glob("*.png")}
        expect(got == want, f"three plots per exercise and parameter set, each exercise apart: {sorted(got)}")
        for name in got:
            data = (tmp / "plots" / name).read_bytes()
            expect(data.startswith(PNG_SIGNATURE) and len(data) > 10_000, f"{name} is a drawn PNG ({len(data)} bytes)")
        (tmp / "flat.json").write_text(json.dumps(dict(r, performance=[])))
        proc = subprocess.run([str(KIT / "labkit"), "plot", "--reports", str(tmp / "flat.json"), "--out",
                               str(tmp / "none")], capture_output=True, text=True, timeout=120)
        expect(proc.returncode == 1 and "no timings" in proc.stdout + proc.stderr,
               "a report without timings (--no-perf) is said so, exit 1")
    print("all ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
