#!/usr/bin/env python3
"""What a user would otherwise pick, timed the way the grader times the kit's kernels.

  --lab integral_image (default)
    GPU: NPP, nppiIntegral_8u32s_C1R_Ctx (through ctypes: int32, the exclusive (W+1) x (H+1)
         layout with a zero first row and column; checked against the inclusive sums).
    GPU: PyTorch, torch.cumsum(torch.cumsum(x, 1), 0) on int32 (two library scans).
    CPU: OpenCV's cv2.integral (8-bit in, 32-bit signed out, with its extra zero row and column).
  --lab histogram_equalization, on uniform noise and on a skewed image (90% of the pixels 255)
    GPU: PyTorch, as a user writes it: bincount, cumsum, the LUT by the lab's formula, lut[x];
         checked against the formula computed with numpy.
    GPU: OpenCV's cv2.cuda.equalizeHist, when OpenCV was built with CUDA (else reported).
    CPU: OpenCV's cv2.equalizeHist (its own rounding: timed, not compared).
  --lab convolution, a float32 image (the `random` pattern, 0..255), the kit's timed filters: the
  Gaussians gaussian:K for each K of --ks (default 3,5,9,15,25), mirror border (reflect-101: no
  repeated edge pixel), output clamped to [0, 255]
    GPU: PyTorch, as a user writes it: F.pad(x, (r, r, r, r), mode='reflect'), F.conv2d with the
         k x k weights, clamp_(0, 255): the pad is timed with the conv. And the separable form a
         user could write for a Gaussian: the same pad, a 1 x k then a k x 1 conv2d, clamp_.
         cuDNN picks its algorithm (cudnn.benchmark = True, warmed up before the timing) and TF32
         is OFF for convolutions (cudnn.allow_tf32 = False, and cudnn.conv.fp32_precision = 'ieee'
         where torch has it): a float32 comparison, as the kit's float32 sums.
    CPU: OpenCV's cv2.filter2D (the k x k weights) and cv2.sepFilter2D (the 1D taps), both with
         BORDER_REFLECT_101, then np.clip; cv2.getNumThreads() is recorded.
    Each peer is checked on a 509x263 image with fractions against the float64 correlation
    (scipy.ndimage.correlate, mode='mirror'; numpy when scipy is missing), clamped: its largest
    error is reported, and it is `checked` within the kit's tolerance (k^2 + 2) * 2^-23 * 255 *
    sum|K| (TF32 operands fail it at small k). A failing peer's timings are marked, not dropped.

GPU: kernels only (CUDA events), the input already on the device, L2 flushed before every run,
the median. CPU: wall-clock median. Prints a Markdown table; --json writes the numbers. Whatever
library is missing is reported and skipped.
"""
import argparse
import functools
import json
import math
import statistics
import sys
import time

LEVELS = 256
SKEWED_SHARE = 0.9  # as the kit's `skewed` pattern: 90% of the pixels 255


def gpu_median_ms(torch, f, runs):
    """f() timed with CUDA events, the L2 flushed before every run; the median."""
    flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.uint8, device="cuda")
    f()  # warm-up
    samples = []
    for _ in range(runs):
        flush.zero_()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples)


def cpu_median_ms(f, runs):
    f()  # warm-up
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def image(np, n, pattern):
    rng = np.random.default_rng(1)
    x = rng.integers(0, LEVELS, (n, n), dtype=np.uint8)
    if pattern == "skewed":
        x[rng.random((n, n)) < SKEWED_SHARE] = LEVELS - 1
    return x


def torch_device(torch):
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    return {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}


# ---- Lab 1 ---------------------------------------------------------------------------------
def integral_torch(sizes, runs):
    import torch
    out = {**torch_device(torch), "ms": {}}
    for n in sizes:
        x = torch.randint(0, LEVELS, (n, n), dtype=torch.uint8, device="cuda")
        f = lambda: torch.cumsum(torch.cumsum(x, 1, dtype=torch.int32), 0, dtype=torch.int32)
        want = x.to(torch.int64).cumsum(1).cumsum(0)  # the library computes what we do (mod 2^32)
        assert torch.equal(f().to(torch.int64) & 0xFFFFFFFF, want & 0xFFFFFFFF)
        out["ms"][str(n)] = gpu_median_ms(torch, f, runs)
    return out


def npp_library(name):
    """NPP's library `name` (nppist, nppicc, ...) through ctypes, from the CUDA toolkit or the
    loader's path; NPP ships with the toolkit, and no header is needed to call it from here."""
    import ctypes
    import glob
    import os
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for path in sorted(glob.glob(f"{home}/lib64/lib{name}.so*")) + sorted(glob.glob(f"{home}/targets/*/lib/lib{name}.so*")) \
            + [f"lib{name}.so"]:
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    raise RuntimeError(f"NPP's lib{name}.so was not found (CUDA toolkit at {home}; set CUDA_HOME)")


def npp_context(torch):
    """NPP's NppStreamContext (nppdefs.h) for torch's current stream, filled by NPP itself."""
    import ctypes

    class NppStreamContext(ctypes.Structure):
        _fields_ = [("hStream", ctypes.c_void_p), ("nCudaDeviceId", ctypes.c_int),
                    ("nMultiProcessorCount", ctypes.c_int), ("nMaxThreadsPerMultiProcessor", ctypes.c_int),
                    ("nMaxThreadsPerBlock", ctypes.c_int), ("nSharedMemPerBlock", ctypes.c_size_t),
                    ("nCudaDevAttrComputeCapabilityMajor", ctypes.c_int),
                    ("nCudaDevAttrComputeCapabilityMinor", ctypes.c_int), ("nStreamFlags", ctypes.c_uint),
                    ("nReserved0", ctypes.c_int)]
    ctx = NppStreamContext()
    status = npp_library("nppc").nppGetStreamContext(ctypes.byref(ctx))
    if status != 0:
        raise RuntimeError(f"nppGetStreamContext: NPP status {status}")
    ctx.hStream = torch.cuda.current_stream().cuda_stream
    return NppStreamContext, ctx


def integral_npp(sizes, runs):
    """nppiIntegral_8u32s_C1R_Ctx: int32 out, and its own layout, (W+1) x (H+1) with a zero first
    row and column (the exclusive table); out[1:, 1:] is the kit's inclusive table (mod 2^32)."""
    import ctypes
    import torch

    class NppiSize(ctypes.Structure):
        _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int)]
    context_type, ctx = npp_context(torch)
    integral = npp_library("nppist").nppiIntegral_8u32s_C1R_Ctx
    integral.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, NppiSize, ctypes.c_int,
                         context_type]
    out = {**torch_device(torch), "layout": "exclusive, (W+1) x (H+1), int32", "ms": {}}
    for n in sizes:
        x = torch.randint(0, LEVELS, (n, n), dtype=torch.uint8, device="cuda")
        table = torch.empty((n + 1, n + 1), dtype=torch.int32, device="cuda")

        def f():
            status = integral(x.data_ptr(), n, table.data_ptr(), 4 * (n + 1), NppiSize(n, n), 0, ctx)
            if status != 0:
                raise RuntimeError(f"nppiIntegral_8u32s_C1R_Ctx: NPP status {status}")
        f()
        want = x.to(torch.int64).cumsum(1).cumsum(0)
        got = table[1:, 1:].to(torch.int64)
        assert torch.equal(got & 0xFFFFFFFF, want & 0xFFFFFFFF) and not table[0].any() and not table[:, 0].any(), \
            "NPP's table differs from the inclusive sums"
        out["ms"][str(n)] = gpu_median_ms(torch, f, runs)
    return out


def integral_opencv(sizes, runs):
    import numpy as np
    import cv2
    out = {"opencv": cv2.__version__, "threads": cv2.getNumThreads(), "ms": {}}
    for n in sizes:
        x = image(np, n, "random")
        out["ms"][str(n)] = cpu_median_ms(lambda: cv2.integral(x, sdepth=cv2.CV_32S), runs)
    return out


# ---- Lab 2 ---------------------------------------------------------------------------------
def lut_numpy(np, x):
    """The lab's contract: the rounded normalized CDF in 64-bit integers."""
    cdf = np.bincount(x.ravel(), minlength=LEVELS).cumsum().astype(np.int64)
    cdf_min = cdf[cdf > 0][0]
    span = x.size - cdf_min
    if span == 0:
        return np.arange(LEVELS, dtype=np.uint8)
    lut = ((cdf - cdf_min) * (LEVELS - 1) + span // 2) // span
    return np.where(cdf == 0, 0, lut).astype(np.uint8)


def equalize_torch(torch, x):
    cdf = torch.bincount(x.view(-1), minlength=LEVELS).cumsum(0)
    cdf_min = cdf[cdf > 0][0]
    span = x.numel() - cdf_min
    lut = torch.where(cdf == 0, 0, ((cdf - cdf_min) * (LEVELS - 1) + span // 2) // span.clamp(min=1))
    return lut.to(torch.uint8)[x.long()]


def histeq_torch(sizes, runs, patterns):
    import numpy as np
    import torch
    out = {**torch_device(torch), "ms": {}}
    for pattern in patterns:
        for n in sizes:
            host = image(np, n, pattern)
            x = torch.from_numpy(host).cuda()
            assert np.array_equal(equalize_torch(torch, x).cpu().numpy(), lut_numpy(np, host)[host])
            out["ms"][f"{pattern} {n}"] = gpu_median_ms(torch, lambda: equalize_torch(torch, x), runs)
    return out


def histeq_opencv_cuda(sizes, runs, patterns):
    import numpy as np
    import torch
    import cv2
    if not hasattr(cv2, "cuda") or cv2.cuda.getCudaEnabledDeviceCount() == 0:
        raise RuntimeError(f"OpenCV {cv2.__version__} here is built without CUDA")
    out = {"opencv": cv2.__version__, "ms": {}}
    for pattern in patterns:
        for n in sizes:
            src, dst = cv2.cuda_GpuMat(), cv2.cuda_GpuMat()
            src.upload(image(np, n, pattern))
            out["ms"][f"{pattern} {n}"] = gpu_median_ms(torch, lambda: cv2.cuda.equalizeHist(src, dst), runs)
    return out


def histeq_opencv(sizes, runs, patterns):
    import numpy as np
    import cv2
    out = {"opencv": cv2.__version__, "threads": cv2.getNumThreads(), "ms": {}}
    for pattern in patterns:
        for n in sizes:
            x = image(np, n, pattern)
            out["ms"][f"{pattern} {n}"] = cpu_median_ms(lambda: cv2.equalizeHist(x), runs)
    return out


# ---- Lab 3 ---------------------------------------------------------------------------------
CHECK_SHAPE = (263, 509)  # rows x columns of the correctness check: small, odd, not square
MAX_VALUE = 255.0         # the output is clamped to [0, 255]


def gaussian_taps(np, k):
    """The kit's gaussian:K (kit/filters.cpp): OpenCV's getGaussianKernel sigma rule, the taps
    normalized in double (summed in order, as the kit does), then float32."""
    sigma = 0.3 * ((k - 1) * 0.5 - 1) + 0.8
    taps = [math.exp(-d * d / (2 * sigma * sigma)) for d in (float(i - k // 2) for i in range(k))]
    total = 0.0
    for t in taps:
        total += t
    return np.array([t / total for t in taps], dtype=np.float32)


def correlate_reference(np, x, w2d):
    """The float64 correlation (no flip) with the mirror border, clamped, and what computed it."""
    x, w = x.astype(np.float64), w2d.astype(np.float64)
    try:
        import scipy
        from scipy import ndimage
    except ImportError:
        k, (h, wd) = w.shape[0], x.shape
        padded = np.pad(x, k // 2, mode="reflect")  # numpy's 'reflect' is reflect-101 too
        ref = np.zeros_like(x)
        for i in range(k):
            for j in range(k):
                ref += w[i, j] * padded[i:i + h, j:j + wd]
        how = f"numpy {np.__version__} (scipy missing)"
    else:
        ref = ndimage.correlate(x, w, mode="mirror")  # scipy's 'mirror' is reflect-101
        how = f"scipy {scipy.__version__} ndimage.correlate"
    return np.clip(ref, 0, MAX_VALUE), how


@functools.lru_cache(maxsize=None)
def conv_case(np, k):
    """The filter gaussian:k (1D taps, and the 2D weights as the kit's float products
    w2d[i][j] = g[i] * g[j]), the check image (fractions, 0..255), its reference, the tolerance."""
    g = gaussian_taps(np, k)
    w2d = np.outer(g, g)  # float32 x float32 -> float32, rounded as the kit's products
    x = (np.random.default_rng(1).random(CHECK_SHAPE) * MAX_VALUE).astype(np.float32)
    want, how = correlate_reference(np, x, w2d)
    tolerance = (k * k + 2) * 2.0 ** -23 * MAX_VALUE * float(np.abs(w2d.astype(np.float64)).sum())
    return {"taps": g, "w2d": w2d, "x": x, "want": want, "tolerance": tolerance, "reference": how}


def conv_check(np, case, got):
    err = float(np.abs(got.astype(np.float64) - case["want"]).max())
    return {"max_abs_error": err, "tolerance": case["tolerance"], "ok": bool(err <= case["tolerance"])}


def no_tf32_convolutions(torch):
    """Keep cuDNN's float32 convolutions in float32: TF32 rounds the operands to 10 mantissa bits,
    and a 3x3 Gaussian is then ~0.05 off against a tolerance of 3e-4. The legacy switch, then
    torch >= 2.9's name for the same one (both False/'ieee': no mixed-API state)."""
    torch.backends.cudnn.allow_tf32 = False
    conv = getattr(torch.backends.cudnn, "conv", None)
    if conv is not None and hasattr(conv, "fp32_precision"):
        conv.fp32_precision = "ieee"
        return f"cudnn.allow_tf32=False, cudnn.conv.fp32_precision={conv.fp32_precision}"
    return f"cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}"


def conv_torch_fn(torch, F, case, separable):
    """What a user writes: pad by r with 'reflect' (torch's reflect is the mirror border), conv2d,
    clamp_. PyTorch's conv2d is a CORRELATION (no flip of the weights), as the lab's formula; the
    Gaussian is symmetric anyway. x is (1, 1, H, W) float32 on the device; so is the result."""
    g = torch.from_numpy(case["taps"]).cuda()
    k = g.numel()
    r = k // 2
    if separable:
        rows, columns = g.view(1, 1, 1, k), g.view(1, 1, k, 1)
        # (H+2r) x (W+2r) -> the row pass, no padding -> (H+2r) x W -> the column pass -> H x W
        return lambda x: F.conv2d(F.conv2d(F.pad(x, (r, r, r, r), mode="reflect"), rows), columns).clamp_(0, MAX_VALUE)
    w = torch.from_numpy(case["w2d"]).cuda().view(1, 1, k, k)
    return lambda x: F.conv2d(F.pad(x, (r, r, r, r), mode="reflect"), w).clamp_(0, MAX_VALUE)


def conv_torch(sizes, ks, runs, separable):
    import numpy as np
    import torch
    import torch.nn.functional as F
    out = {**torch_device(torch), "cudnn": torch.backends.cudnn.version(), "tf32": no_tf32_convolutions(torch)}
    torch.backends.cudnn.benchmark = True  # cuDNN times its algorithms on a shape's first call and keeps the fastest
    out.update(ms={}, check={})
    fns = {}
    for k in ks:
        case = conv_case(np, k)
        fns[k] = conv_torch_fn(torch, F, case, separable)
        x = torch.from_numpy(case["x"]).cuda().view(1, 1, *CHECK_SHAPE)
        out["check"][f"k={k}"] = conv_check(np, case, fns[k](x)[0, 0].cpu().numpy())  # .cpu() waits for the device
        out["reference"] = case["reference"]
    for n in sizes:
        x = torch.from_numpy(image(np, n, "random").astype(np.float32)).cuda().view(1, 1, n, n)
        for k in ks:
            fns[k](x)  # cuDNN's benchmark for this shape, outside the timing (gpu_median_ms warms up too)
            torch.cuda.synchronize()
            out["ms"][f"k={k} {n}"] = gpu_median_ms(torch, lambda: fns[k](x), runs)
    return out


def conv_opencv(sizes, ks, runs, separable):
    import numpy as np
    import cv2

    def filt(x, case):  # OpenCV's filter2D and sepFilter2D are correlations too (no flip)
        if separable:
            y = cv2.sepFilter2D(x, -1, case["taps"], case["taps"], borderType=cv2.BORDER_REFLECT_101)
        else:
            y = cv2.filter2D(x, -1, case["w2d"], borderType=cv2.BORDER_REFLECT_101)
        return np.clip(y, 0, MAX_VALUE, out=y)

    out = {"opencv": cv2.__version__, "threads": cv2.getNumThreads(), "ms": {}, "check": {}}
    for k in ks:
        case = conv_case(np, k)
        out["check"][f"k={k}"] = conv_check(np, case, filt(case["x"], case))
        out["reference"] = case["reference"]
    for n in sizes:
        x = image(np, n, "random").astype(np.float32)
        for k in ks:
            case = conv_case(np, k)
            out["ms"][f"k={k} {n}"] = cpu_median_ms(lambda: filt(x, case), runs)
    return out


def print_convolution(results, sizes, ks):
    """A table per size, rows k, a column per peer; then the check, rows k, each peer's largest error."""
    checked = lambda r, k: r.get("check", {}).get(f"k={k}", {}).get("ok", False)
    for n in sizes:
        print(f"| k ({n}², ms) | " + " | ".join(results) + " |")
        print("| ---: |" + " ---: |" * len(results))
        for k in ks:
            cells = [(f"{r['ms'][f'k={k} {n}']:.4f}" + ("" if checked(r, k) else " ✗")) if "ms" in r else "—"
                     for r in results.values()]
            print(f"| {k} | " + " | ".join(cells) + " |")
        print()
    h, w = CHECK_SHAPE
    print(f"| k (check {w}x{h}: max abs error) | " + " | ".join(results) + " | tolerance |")
    print("| ---: |" + " ---: |" * (len(results) + 1))
    for k in ks:
        checks = [r.get("check", {}).get(f"k={k}") for r in results.values()]
        cells = [("✓ " if c["ok"] else "✗ ") + f"{c['max_abs_error']:.3g}" if c else "—" for c in checks]
        tolerance = next((f"{c['tolerance']:.3g}" for c in checks if c), "—")
        print(f"| {k} | " + " | ".join(cells) + f" | {tolerance} |")
    print("(✓: within the kit's tolerance; ✗: over it, and that peer's times are marked ✗ above)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", choices=("integral_image", "histogram_equalization", "convolution"), default="integral_image")
    ap.add_argument("--sizes", default="1024,2048,4096,8192")
    ap.add_argument("--ks", default="3,5,9,15,25", help="convolution: the Gaussians' sizes k, odd, 1..25 (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    ks = [int(k) for k in a.ks.split(",")]
    if any(k % 2 == 0 or not 1 <= k <= 25 for k in ks):
        ap.error(f"--ks {a.ks}: each k odd, from 1 to 25")
    if a.lab == "integral_image":
        rows = [str(n) for n in sizes]
        tools = {"npp_integral_gpu": lambda: integral_npp(sizes, a.runs),
                 "torch_cumsum_gpu": lambda: integral_torch(sizes, a.runs),
                 "opencv_integral_cpu": lambda: integral_opencv(sizes, a.runs)}
    elif a.lab == "convolution":
        rows = None
        tools = {"torch_conv2d_gpu": lambda: conv_torch(sizes, ks, a.runs, separable=False),
                 "torch_separable_gpu": lambda: conv_torch(sizes, ks, a.runs, separable=True),
                 "opencv_filter2d_cpu": lambda: conv_opencv(sizes, ks, a.runs, separable=False),
                 "opencv_sepfilter2d_cpu": lambda: conv_opencv(sizes, ks, a.runs, separable=True)}
    else:
        patterns = ("random", "skewed")
        rows = [f"{p} {n}" for p in patterns for n in sizes]
        tools = {"torch_gpu": lambda: histeq_torch(sizes, a.runs, patterns),
                 "opencv_cuda_gpu": lambda: histeq_opencv_cuda(sizes, a.runs, patterns),
                 "opencv_cpu": lambda: histeq_opencv(sizes, a.runs, patterns)}
    results = {}
    for name, fn in tools.items():
        try:
            results[name] = fn()
        except Exception as e:  # a missing library is a line in the report, not a crash
            results[name] = {"error": f"{type(e).__name__}: {e}"}
    if rows is None:
        print_convolution(results, sizes, ks)
    else:
        print("| image | " + " | ".join(results) + " |")
        print("| --- |" + " ---: |" * len(results))
        for row in rows:
            cells = [f"{r['ms'][row]:.4f} ms" if "ms" in r else "—" for r in results.values()]
            print(f"| {row}² | " + " | ".join(cells) + " |")
    for name, r in results.items():
        print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in r.items() if k not in ("ms", "check")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
