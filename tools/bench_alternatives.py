#!/usr/bin/env python3
"""What a user would otherwise pick, timed the way the grader times the kit's kernels.

  --lab integral_image (default)
    GPU: NPP, nppiIntegral_8u32s_C1R_Ctx (through ctypes: int32, the exclusive (W+1) x (H+1)
         layout with a zero first row and column; checked against the inclusive sums).
    GPU: PyTorch, torch.cumsum(torch.cumsum(x, 1), 0) on int32 (two library scans).
    CUB is not here: the lab's own peer, peer-cub (labs/integral_image/kit/peers.cu), scans the rows
    with DeviceScan::InclusiveSumByKey from C++, in the grader's run.
    CPU: OpenCV's cv2.integral (8-bit in, 32-bit signed out, with its extra zero row and column).
  --lab histogram_equalization, on uniform noise and on a skewed image (90% of the pixels 255)
    GPU: PyTorch, as a user writes it: bincount, cumsum, the LUT by the lab's formula, lut[x];
         checked against the formula computed with numpy.
    GPU: OpenCV's cv2.cuda.equalizeHist, when OpenCV was built with CUDA (else reported).
    GPU: NPP, nppiHistogramEven_8u_C1R_Ctx, the LUT by the lab's formula from its bins in torch on the
         device (no host sync), nppiLUTPalette_8u_C1R_Ctx: one pipeline, timed whole; checked equal.
    CPU: OpenCV's cv2.equalizeHist (its own rounding: timed, not compared).
    The histogram alone ("histogram-only" rows, also on a single-valued image, the kit's `full`):
    GPU: NPP's nppiHistogramEven_8u_C1R_Ctx, checked equal to numpy's bincount.
    CUB is not here: the lab's own peer, peer-cub (labs/histogram_equalization/kit/peers.cu), calls
    DeviceHistogram::HistogramEven with 32-bit counters from C++, in the grader's run.
  --lab convolution, a float32 image (the `random` pattern, 0..255), the kit's timed filters: the
  Gaussians gaussian:K for each K of --ks (default 3,5,9,15,25), mirror border (reflect-101: no
  repeated edge pixel), output clamped to [0, 255]
    GPU: PyTorch, as a user writes it: F.pad(x, (r, r, r, r), mode='reflect'), F.conv2d with the
         k x k weights, clamp_(0, 255): the pad is timed with the conv. And the separable form a
         user could write for a Gaussian: the same pad, a 1 x k then a k x 1 conv2d, clamp_.
         cuDNN picks its algorithm (cudnn.benchmark = True, warmed up before the timing) and TF32
         is OFF for convolutions (cudnn.allow_tf32 = False, and cudnn.conv.fp32_precision = 'ieee'
         where torch has it): a float32 comparison, as the kit's float32 sums.
    NPP is not here: the lab's own peers, peer-npp and peer-npp-separable
    (labs/convolution/kit/peers.cu), call its filters from C++, in the grader's run.
    CPU: OpenCV's cv2.filter2D (the k x k weights) and cv2.sepFilter2D (the 1D taps), both with
         BORDER_REFLECT_101, then np.clip; cv2.getNumThreads() is recorded.
    CPU: OpenCV's cv2.GaussianBlur(x, (k, k), sigma, sigma, BORDER_REFLECT_101): OpenCV makes the
         taps itself from the kit's sigma for gaussian:K; no np.clip (a Gaussian keeps 0..255, and
         the check, of the unclamped output, would show a value outside).
    Each peer is checked on a 509x263 image with fractions against the float64 correlation
    (scipy.ndimage.correlate, mode='mirror'; numpy when scipy is missing), clamped: its largest
    error is reported, and it is `checked` within the kit's own tolerance for the filter (TF32
    operands fail it at small k). A failing peer's timings are marked, not dropped. The filters'
    weights, taps and sigma and the tolerance are the kit's, read from the lab's grader
    (`<grader> contract`, --build-dir), never restated here.

GPU: kernels only (CUDA events), the input already on the device, L2 flushed before every run (a
read sweep, as the kit's own timings), the median. CPU: wall-clock median. Prints a Markdown table;
--json writes the numbers, with each new peer's `note` (its conventions and what is timed). Whatever
library is missing is reported and skipped. NPP is called through ctypes on PyTorch's memory and
stream (one NppStreamContext).
"""
import argparse
import ctypes
import functools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = ROOT / "build"  # where the labs' graders are (--build-dir)
sys.path.insert(0, str(ROOT / "cli"))
from labkit.facts import TIMED_SIZES  # noqa: E402  (the grader's timed sizes, as labkit-facts exports them)
CONTRACT_TIMEOUT_S = 60
LEVELS = 256
BITS = 8    # bits per pixel: NPP's palette LUT has 2^BITS = LEVELS entries
HISTOGRAM_FLOOR_BPP = 1  # a histogram alone reads each pixel once and writes nothing per pixel
SKEWED_SHARE = 0.9  # as the kit's `skewed` pattern: 90% of the pixels 255


def gpu_median_ms(torch, f, runs):
    """f() timed with CUDA events, the L2 flushed before every run; the median. The flush is the
    kit's (common/l2_flush.cu): a read of twice the L2, which leaves it holding clean lines only. A
    memset (zero_()) would leave it full of dirty ones, whose write-back the timed run would pay."""
    flush = torch.ones(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4, dtype=torch.int32, device="cuda")
    f()  # warm-up
    samples = []
    for _ in range(runs):
        torch.amax(flush)  # a read sweep: one pass over the buffer, a single int written
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples)


CPU_MIN_RUNS, CPU_TARGET_S = 3, 2.0  # a slow CPU call stops at its third run past two seconds


def cpu_median_ms(f, runs):
    """The median wall time of up to `runs` calls after a warm-up: fewer for a slow call (at least
    CPU_MIN_RUNS, then until CPU_TARGET_S have passed), as the grader's own policy does."""
    f()  # warm-up
    samples, start = [], time.perf_counter()
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        samples.append((time.perf_counter() - t0) * 1e3)
        if len(samples) >= CPU_MIN_RUNS and time.perf_counter() - start > CPU_TARGET_S:
            break
    return statistics.median(samples)


THREAD_PROBE_RUNS = 3  # runs of each OpenCV call on one thread, to state how many threads it uses


def opencv_thread_use(cv2, row, f, ms):
    """How many threads one OpenCV call uses, measured: ms, f's time on the row's image at OpenCV's
    thread count (already measured), beside its median on one thread (cv2.setNumThreads(1)).
    cv2.getNumThreads() alone says what OpenCV may use, not what a call does."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        one = cpu_median_ms(f, THREAD_PROBE_RUNS)
    finally:
        cv2.setNumThreads(threads)
    return {"row": row, "threads": threads, "ms": ms, "one_thread_ms": one}


def image(np, n, pattern):
    rng = np.random.default_rng(1)
    x = rng.integers(0, LEVELS, (n, n), dtype=np.uint8)
    if pattern == "skewed":
        x[rng.random((n, n)) < SKEWED_SHARE] = LEVELS - 1
    elif pattern == "full":  # as the kit's `full`: a single-valued image, every pixel 255
        x[:] = LEVELS - 1
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


@functools.lru_cache(maxsize=None)
def npp_library(name):
    """NPP's library `name` (nppist, nppif, nppicc, ...) through ctypes, from the CUDA toolkit or the
    loader's path; NPP ships with the toolkit, and no header is needed to call it from here."""
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


# NPP's structures (nppdefs.h), passed by value.
class NppiSize(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int)]


class NppStreamContext(ctypes.Structure):
    _fields_ = [("hStream", ctypes.c_void_p), ("nCudaDeviceId", ctypes.c_int),
                ("nMultiProcessorCount", ctypes.c_int), ("nMaxThreadsPerMultiProcessor", ctypes.c_int),
                ("nMaxThreadsPerBlock", ctypes.c_int), ("nSharedMemPerBlock", ctypes.c_size_t),
                ("nCudaDevAttrComputeCapabilityMajor", ctypes.c_int),
                ("nCudaDevAttrComputeCapabilityMinor", ctypes.c_int), ("nStreamFlags", ctypes.c_uint),
                ("nReserved0", ctypes.c_int)]


class NppLibraryVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("build", ctypes.c_int)]


@functools.lru_cache(maxsize=None)
def npp_context(torch):
    """The one NppStreamContext of this run: filled by NPP itself, on torch's current stream."""
    ctx = NppStreamContext()
    status = npp_library("nppc").nppGetStreamContext(ctypes.byref(ctx))
    if status != 0:
        raise RuntimeError(f"nppGetStreamContext: NPP status {status}")
    ctx.hStream = torch.cuda.current_stream().cuda_stream
    return ctx


def npp_version():
    get = npp_library("nppc").nppGetLibVersion
    get.restype = ctypes.POINTER(NppLibraryVersion)
    v = get().contents
    return {"npp": f"{v.major}.{v.minor}.{v.build}"}


def npp_function(torch, library, name, *argtypes):
    """NPP's `name` from lib`library` with its argument types up to the stream context (the _Ctx
    functions' last argument, added here), as a call that raises on any status but NPP_SUCCESS."""
    fn = getattr(npp_library(library), name)
    fn.argtypes = [*argtypes, NppStreamContext]
    fn.restype = ctypes.c_int
    ctx = npp_context(torch)

    def call(*args):
        status = fn(*args, ctx)
        if status != 0:
            raise RuntimeError(f"{name}: NPP status {status}")
    return call


def pitch(t):
    """A 2D tensor's row step in bytes, as NPP takes it."""
    return t.stride(0) * t.element_size()


def integral_npp(sizes, runs):
    """nppiIntegral_8u32s_C1R_Ctx: int32 out, and its own layout, (W+1) x (H+1) with a zero first
    row and column (the exclusive table); out[1:, 1:] is the kit's inclusive table (mod 2^32)."""
    import torch
    out = {**torch_device(torch), "layout": "exclusive, (W+1) x (H+1), int32", "ms": {}}
    integral = npp_function(torch, "nppist", "nppiIntegral_8u32s_C1R_Ctx", ctypes.c_void_p, ctypes.c_int,
                            ctypes.c_void_p, ctypes.c_int, NppiSize, ctypes.c_int)
    out.update(npp_version())
    for n in sizes:
        x = torch.randint(0, LEVELS, (n, n), dtype=torch.uint8, device="cuda")
        table = torch.empty((n + 1, n + 1), dtype=torch.int32, device="cuda")
        f = lambda: integral(x.data_ptr(), pitch(x), table.data_ptr(), pitch(table), NppiSize(n, n), 0)
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
    out["thread_use"] = opencv_thread_use(cv2, str(n), lambda: cv2.integral(x, sdepth=cv2.CV_32S), out["ms"][str(n)])
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
    out["thread_use"] = opencv_thread_use(cv2, f"{pattern} {n}", lambda: cv2.equalizeHist(x), out["ms"][f"{pattern} {n}"])
    return out


HISTOGRAM_ROW = "histogram-only"  # the rows of the peers that compute the histogram alone (not the lab's output)


def lut_torch(torch, hist, identity):
    """lut_numpy's formula on the device, from a device histogram, without a host sync: N as the
    last cdf value, cdf_min as the smallest non-zero one; a single-valued image (span 0) maps to
    itself (identity, arange(LEVELS) on the device)."""
    cdf = hist.to(torch.int64).cumsum(0)
    pixels = cdf[-1]  # N, on the device
    cdf_min = torch.where(cdf > 0, cdf, pixels).amin()
    span = pixels - cdf_min
    lut = torch.where(cdf == 0, 0, ((cdf - cdf_min) * (LEVELS - 1) + span // 2) // span.clamp(min=1))
    return torch.where(span == 0, identity, lut).to(torch.uint8)


def npp_histogram(torch, n):
    """nppiHistogramEven_8u_C1R_Ctx over an n x n uint8 device image into LEVELS int32 bins: LEVELS + 1
    even level boundaries 0, 1, ..., LEVELS, so bin v counts the pixels in [v, v + 1); the scratch
    buffer is sized by nppiHistogramEvenGetBufferSize_8u_C1R_Ctx (size_t * since CUDA 12) and
    allocated once, outside the timing. Returns the bins and the call (x -> fills the bins)."""
    histogram = npp_function(torch, "nppist", "nppiHistogramEven_8u_C1R_Ctx", ctypes.c_void_p, ctypes.c_int, NppiSize,
                             ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p)
    buffer_size = npp_function(torch, "nppist", "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx", NppiSize, ctypes.c_int,
                               ctypes.POINTER(ctypes.c_size_t))
    size = ctypes.c_size_t(0)  # zeroed: an NPP that writes an int here (CUDA 11) still reads right
    buffer_size(NppiSize(n, n), LEVELS + 1, ctypes.byref(size))
    scratch = torch.empty(max(size.value, 1), dtype=torch.uint8, device="cuda")
    bins = torch.empty(LEVELS, dtype=torch.int32, device="cuda")
    return bins, lambda x: histogram(x.data_ptr(), pitch(x), NppiSize(n, n), bins.data_ptr(), LEVELS + 1, 0, LEVELS,
                                     scratch.data_ptr())


def histeq_npp(sizes, runs, patterns):
    """NPP's histogram, the LUT by torch on the device, NPP's LUT (nppiLUTPalette_8u_C1R_Ctx, an
    8-bit palette: dst = table[src]), timed as one pipeline."""
    import numpy as np
    import torch
    out = {**torch_device(torch), "ms": {},
           "note": "nppiHistogramEven_8u_C1R_Ctx (257 levels 0..256: bin v = [v, v+1)), the LUT from its int32 "
                   "bins by ~15 tiny torch kernels on the device (rounded normalized CDF, 64-bit, no host sync), "
                   "nppiLUTPalette_8u_C1R_Ctx (nBitSize 8); all three timed, kernels only; scratch allocated once"}
    palette = npp_function(torch, "nppicc", "nppiLUTPalette_8u_C1R_Ctx", ctypes.c_void_p, ctypes.c_int,
                           ctypes.c_void_p, ctypes.c_int, NppiSize, ctypes.c_void_p, ctypes.c_int)
    out.update(npp_version())
    identity = torch.arange(LEVELS, device="cuda")
    for pattern in patterns:
        for n in sizes:
            host = image(np, n, pattern)
            x, y = torch.from_numpy(host).cuda(), torch.empty((n, n), dtype=torch.uint8, device="cuda")
            bins, histogram = npp_histogram(torch, n)

            def f():
                histogram(x)
                lut = lut_torch(torch, bins, identity)
                palette(x.data_ptr(), pitch(x), y.data_ptr(), pitch(y), NppiSize(n, n), lut.data_ptr(), BITS)
            out["ms"][f"{pattern} {n}"] = gpu_median_ms(torch, f, runs)
            # checked after the timing: the output of the last run (a histogram that accumulates shows)
            assert np.array_equal(y.cpu().numpy(), lut_numpy(np, host)[host]), f"NPP's output differs ({pattern} {n})"
    return out


def check_bins(np, got, host, who):
    assert np.array_equal(np.asarray(got).astype(np.int64), np.bincount(host.ravel(), minlength=LEVELS)), \
        f"{who}'s histogram differs from numpy's bincount"


def histogram_npp(sizes, runs, patterns):
    import numpy as np
    import torch
    out = {**torch_device(torch), "ms": {},
           "note": "the histogram alone (not the lab's output): nppiHistogramEven_8u_C1R_Ctx, 257 levels 0..256 "
                   "(bin v = [v, v+1)), int32 bins; kernels only, scratch allocated once",
           "floor_bytes_per_pixel": HISTOGRAM_FLOOR_BPP}
    out.update(npp_version())
    for pattern in patterns:
        for n in sizes:
            host = image(np, n, pattern)
            x = torch.from_numpy(host).cuda()
            bins, histogram = npp_histogram(torch, n)
            out["ms"][f"{HISTOGRAM_ROW} {pattern} {n}"] = gpu_median_ms(torch, lambda: histogram(x), runs)
            check_bins(np, bins.cpu().numpy(), host, "NPP")  # the last timed run's bins
    return out


# ---- Lab 3 ---------------------------------------------------------------------------------
CHECK_SHAPE = (263, 509)  # rows x columns of the correctness check: small, odd, not square
MAX_VALUE = 255.0         # the output is clamped to [0, 255]


def contract(lab, width, height, **options):
    """The facts of each exercise of lab for a width x height input and `run`'s options (e.g.
    filter="gaussian:5"), as the lab's grader prints them (`<grader> contract`)."""
    grader = BUILD_DIR / "labs" / f"{lab}_grader"
    cmd = [str(grader), "contract", "--width", str(width), "--height", str(height)]
    for name, value in options.items():
        cmd += [f"--{name}", str(value)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=CONTRACT_TIMEOUT_S)
    except OSError as e:
        raise RuntimeError(f"{grader}: {e.strerror} (build the kit: ./labkit build; or --build-dir)") from None
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {(r.stderr.strip().splitlines() or ['exit ' + str(r.returncode)])[-1]}")
    return json.loads(r.stdout)


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
    """The filter gaussian:k as the kit makes it (its 1D taps, its k x k float32 weights, its sigma),
    the check image (fractions, 0..255), its reference, and the kit's tolerance for that filter."""
    facts = contract("convolution", CHECK_SHAPE[1], CHECK_SHAPE[0], filter=f"gaussian:{k}")[0]
    params = facts["params"]
    w2d = np.array(params["weights"], dtype=np.float32).reshape(k, k)
    g = np.array(params["row"], dtype=np.float32)
    x = (np.random.default_rng(1).random(CHECK_SHAPE) * MAX_VALUE).astype(np.float32)
    want, how = correlate_reference(np, x, w2d)
    return {"taps": g, "w2d": w2d, "sigma": (params.get("sigma") or [None])[0], "x": x, "want": want,
            "tolerance": facts["comparison"]["abs"], "reference": how}


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


def conv_opencv(sizes, ks, runs, how):
    """how: "filter2d" (the k x k weights), "sepfilter2d" (the 1D taps), both clamped by np.clip as
    a user of a general filter would, or "gaussianblur" (OpenCV's own Gaussian from the kit's sigma)."""
    import numpy as np
    import cv2

    def filt(x, case):  # OpenCV's filters are correlations too (no flip)
        k = case["taps"].size
        if how == "gaussianblur":
            sigma = case["sigma"]
            return cv2.GaussianBlur(x, (k, k), sigmaX=sigma, sigmaY=sigma, borderType=cv2.BORDER_REFLECT_101)
        if how == "sepfilter2d":
            y = cv2.sepFilter2D(x, -1, case["taps"], case["taps"], borderType=cv2.BORDER_REFLECT_101)
        else:
            y = cv2.filter2D(x, -1, case["w2d"], borderType=cv2.BORDER_REFLECT_101)
        return np.clip(y, 0, MAX_VALUE, out=y)

    out = {"opencv": cv2.__version__, "threads": cv2.getNumThreads(), "ms": {}, "check": {}}
    if how == "gaussianblur":
        out["note"] = ("cv2.GaussianBlur(x, (k, k), sigmaX=sigmaY=the kit's sigma of gaussian:K, BORDER_REFLECT_101) "
                       "on float32: OpenCV makes the taps from sigma; timed without a "
                       "clamp, since a Gaussian keeps 0..255 (the check is of the unclamped output)")
    for k in ks:
        case = conv_case(np, k)
        out["check"][f"k={k}"] = conv_check(np, case, filt(case["x"], case))
        out["reference"] = case["reference"]
    for n in sizes:
        x = image(np, n, "random").astype(np.float32)
        for k in ks:
            case = conv_case(np, k)
            out["ms"][f"k={k} {n}"] = cpu_median_ms(lambda: filt(x, case), runs)
    case = conv_case(np, ks[0])  # the smallest filter: the thread probe's single-thread runs stay short
    out["thread_use"] = opencv_thread_use(cv2, f"k={ks[0]} {n}", lambda: filt(x, case), out["ms"][f"k={ks[0]} {n}"])
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
    global BUILD_DIR
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", choices=("integral_image", "histogram_equalization", "convolution"), default="integral_image")
    ap.add_argument("--sizes", default=TIMED_SIZES,
                    help="square sizes (default: the grader's timed sizes, %(default)s)")
    ap.add_argument("--ks", default="3,5,9,15,25", help="convolution: the Gaussians' sizes k, odd, 1..25 (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--build-dir", default=str(BUILD_DIR),
                    help="the kit's build folder, whose graders say each lab's facts (default: %(default)s)")
    a = ap.parse_args()
    BUILD_DIR = Path(a.build_dir)
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
                 "opencv_filter2d_cpu": lambda: conv_opencv(sizes, ks, a.runs, "filter2d"),
                 "opencv_sepfilter2d_cpu": lambda: conv_opencv(sizes, ks, a.runs, "sepfilter2d"),
                 "opencv_gaussianblur_cpu": lambda: conv_opencv(sizes, ks, a.runs, "gaussianblur")}
    else:
        patterns = ("random", "skewed")
        histogram_patterns = patterns + ("full",)  # and a single-valued image: every pixel in one bin
        rows = [f"{p} {n}" for p in patterns for n in sizes] \
            + [f"{HISTOGRAM_ROW} {p} {n}" for p in histogram_patterns for n in sizes]
        tools = {"torch_gpu": lambda: histeq_torch(sizes, a.runs, patterns),
                 "npp_histogram_lut_gpu": lambda: histeq_npp(sizes, a.runs, patterns),
                 "opencv_cuda_gpu": lambda: histeq_opencv_cuda(sizes, a.runs, patterns),
                 "opencv_cpu": lambda: histeq_opencv(sizes, a.runs, patterns),
                 "npp_histogram_only_gpu": lambda: histogram_npp(sizes, a.runs, histogram_patterns)}
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
        for row in rows:  # a peer that does not compute a row (the histogram-only ones) has "—" there
            cells = [f"{r['ms'][row]:.4f} ms" if row in r.get("ms", {}) else "—" for r in results.values()]
            print(f"| {row}² | " + " | ".join(cells) + " |")
    for name, r in results.items():
        print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in r.items() if k not in ("ms", "check")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
