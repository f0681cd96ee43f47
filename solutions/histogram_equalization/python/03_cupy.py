"""Lab 2, Python track, CuPy: the host side of histogram equalization.

RawModule compiles 01_kernels.cu in-process with NVRTC on first use (get_function) and caches the
result; a launch is kernel(grid, block, args) with the arrays passed as they are and each scalar
as a numpy scalar of the kernel parameter's type (np.uint64 for `pixels`)."""
import cupy as cp
import numpy as np

LEVELS = 256       # kLevels of 01_kernels.cu: the bins, and the threads of the scan's and the LUT's one block
BLOCK = 256        # threads per block of the histogram and the map (grid-stride: any count works)
MAX_BLOCKS = 1024  # grid cap: about one full wave of BLOCK-thread blocks on an H100 (132 SMs x 8)
KERNELS = ("histogram_privatized", "scan_kogge_stone", "normalize_lut", "equalize")


def compile(source):
    module = cp.RawModule(code=source, options=("-std=c++17",))
    return {name: module.get_function(name) for name in KERNELS}


def grid_for(pixels):
    """One thread per pixel up to MAX_BLOCKS blocks; past that the grid-stride loops take over."""
    return (min((pixels + BLOCK - 1) // BLOCK, MAX_BLOCKS),)


def histogram_equalization(kernels, ctx, image, out):
    height, width = image.shape
    pixels = np.uint64(height * width)
    grid = grid_for(height * width)
    hist = ctx.scratch("hist", (LEVELS,), np.uint32)
    cdf = ctx.scratch("cdf", (LEVELS,), np.uint32)
    lut = ctx.scratch("lut", (LEVELS,), np.uint8)
    ctx.zero(hist)  # the kernel adds to the bins, and scratch arrays start poisoned
    kernels["histogram_privatized"](grid, (BLOCK,), (image, hist, pixels))
    ctx.end_stage()
    kernels["scan_kogge_stone"]((1,), (LEVELS,), (hist, cdf))
    ctx.end_stage()
    kernels["normalize_lut"]((1,), (LEVELS,), (cdf, lut, pixels))
    ctx.end_stage()
    kernels["equalize"](grid, (BLOCK,), (image, out, lut, pixels))
    ctx.end_stage()
