"""Lab 2, Python track, PyCUDA: the host side of histogram equalization, as in the reports.

SourceModule hands 01_kernels.cu to nvcc (a separate process: the first call's time is mostly
this) and loads the cubin; a launch packs the arguments with struct and calls cuLaunchKernel, so a
scalar goes as a numpy scalar of the kernel parameter's exact type (np.uint64 for `pixels`)."""
import numpy as np
from pycuda.compiler import SourceModule

LEVELS = 256       # kLevels of 01_kernels.cu: the bins, and the threads of the scan's and the LUT's one block
BLOCK = 256        # threads per block of the histogram and the map (grid-stride: any count works)
MAX_BLOCKS = 1024  # grid cap: about one full wave of BLOCK-thread blocks on an H100 (132 SMs x 8)
KERNELS = ("histogram_privatized", "scan_kogge_stone", "normalize_lut", "equalize")


def compile(source):
    module = SourceModule(source, no_extern_c=True, options=["-std=c++17"])
    return {name: module.get_function(name) for name in KERNELS}


def grid_for(pixels):
    """One thread per pixel up to MAX_BLOCKS blocks; past that the grid-stride loops take over
    (more blocks would only add merges of private histograms and loads of the LUT)."""
    return (min((pixels + BLOCK - 1) // BLOCK, MAX_BLOCKS), 1)


def histogram_equalization(kernels, ctx, image, out):
    height, width = image.shape
    pixels = np.uint64(height * width)
    grid = grid_for(height * width)
    hist = ctx.scratch("hist", (LEVELS,), np.uint32)
    cdf = ctx.scratch("cdf", (LEVELS,), np.uint32)
    lut = ctx.scratch("lut", (LEVELS,), np.uint8)
    ctx.zero(hist)  # the kernel adds to the bins, and scratch arrays start poisoned
    kernels["histogram_privatized"](image, hist, pixels, block=(BLOCK, 1, 1), grid=grid)
    ctx.end_stage()
    kernels["scan_kogge_stone"](hist, cdf, block=(LEVELS, 1, 1), grid=(1, 1))
    ctx.end_stage()
    kernels["normalize_lut"](cdf, lut, pixels, block=(LEVELS, 1, 1), grid=(1, 1))
    ctx.end_stage()
    kernels["equalize"](image, out, lut, pixels, block=(BLOCK, 1, 1), grid=grid)
    ctx.end_stage()
