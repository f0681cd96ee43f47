# starter: generates labs/histogram_equalization/python/02_pycuda.py
# starter: step optional Python track: the host side with PyCUDA
# starter: prompt
#> """Lab 2, Python track, PyCUDA: the host side of histogram equalization.
#>
#> SourceModule hands 01_kernels.cu to nvcc (a separate process: the first call's time is mostly
#> this) and loads the cubin; a launch packs the arguments with struct and calls cuLaunchKernel.
#> Write the kernels of 01_kernels.cu first (steps K1 to K4), then steps P1 to P3 here.
#>
#> PyCUDA's reference: https://documen.tician.de/pycuda/driver.html (pycuda.compiler.SourceModule,
#> and Function: calling a kernel). In general terms a launch is
    #> function(arg, arg, ..., block=(x, y, z), grid=(x, y))
#> where a device array (GPUArray) is passed as it is and every scalar as a numpy scalar of the
#> kernel parameter's exact type (np.int32 for int, np.uint64 for unsigned long long): struct packs
#> each argument by its dtype, and a scalar of the wrong width shifts every argument after it."""
# starter: solution
"""Lab 2, Python track, PyCUDA: the host side of histogram equalization, as in the reports.

SourceModule hands 01_kernels.cu to nvcc (a separate process: the first call's time is mostly
this) and loads the cubin; a launch packs the arguments with struct and calls cuLaunchKernel, so a
scalar goes as a numpy scalar of the kernel parameter's exact type (np.uint64 for `pixels`)."""
# starter: end
import numpy as np
from pycuda.compiler import SourceModule

LEVELS = 256       # kLevels of 01_kernels.cu: the bins, and the threads of the scan's and the LUT's one block
BLOCK = 256        # threads per block of the histogram and the map (grid-stride: any count works)
MAX_BLOCKS = 1024  # grid cap: about one full wave of BLOCK-thread blocks on an H100 (132 SMs x 8)
KERNELS = ("histogram_privatized", "scan_kogge_stone", "normalize_lut", "equalize")


# starter: prompt
# Step P1: compile `source` (the text of 01_kernels.cu) with SourceModule and return the kernels
#   by name (a dict of KERNELS works: the runner hands it back as `kernels`). Pitfall: by default
#   SourceModule wraps the whole source in extern "C" { ... }; this file declares its kernels
#   extern "C" itself, so tell SourceModule not to (see its no_extern_c argument).
# starter: end
def compile(source):
    # starter: prompt
    #> raise NotImplementedError("TODO step P1: compile(): build 01_kernels.cu with SourceModule")
    # starter: solution
    module = SourceModule(source, no_extern_c=True, options=["-std=c++17"])
    return {name: module.get_function(name) for name in KERNELS}
    # starter: end


# starter: prompt
# Step P2: the grid of the two grid-stride kernels (histogram and map) for `pixels` pixels: one
#   thread per pixel, but never more than MAX_BLOCKS blocks (past that, what would more blocks
#   cost the histogram?). Pitfall: a launch needs at least one block, and plain Python ints.
# starter: end
def grid_for(pixels):
    # starter: prompt
    #> raise NotImplementedError("TODO step P2: grid_for(): the number of blocks")
    # starter: solution
    """One thread per pixel up to MAX_BLOCKS blocks; past that the grid-stride loops take over
    (more blocks would only add merges of private histograms and loads of the LUT)."""
    return (min((pixels + BLOCK - 1) // BLOCK, MAX_BLOCKS), 1)
    # starter: end


# starter: prompt
# Step P3: the four stages, each followed by ctx.end_stage() (the report times each one):
#   1. histogram: zero the histogram (ctx.zero, inside this stage: it is part of the work), then
#      histogram_privatized on the image;
#   2. scan: scan_kogge_stone, one block of LEVELS threads;
#   3. normalize: normalize_lut, one block of LEVELS threads;
#   4. equalize: equalize, from image to out.
#   The histogram, the CDF and the LUT are LEVELS-entry device arrays from ctx.scratch (uint32,
#   uint32, uint8): never allocate in here, and never assume a scratch array holds zeros (it is
#   poisoned before every run). image and out are dense (height, width) GPUArrays.
#   Why is no synchronization needed between the four launches?
# starter: end
def histogram_equalization(kernels, ctx, image, out):
    # starter: prompt
    #> raise NotImplementedError("TODO step P3: histogram_equalization(): the four stages")
    # starter: solution
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
    # starter: end
