# Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
"""Lab 2, Python track, PyCUDA: the host side of histogram equalization.

SourceModule hands 01_kernels.cu to nvcc (a separate process: the first call's time is mostly
this) and loads the cubin; a launch packs the arguments with struct and calls cuLaunchKernel.
Write the kernels of 01_kernels.cu first (steps K1 to K4), then steps P1 to P3 here.

PyCUDA's reference: https://documen.tician.de/pycuda/driver.html (pycuda.compiler.SourceModule,
and Function: calling a kernel). In general terms a launch is
    function(arg, arg, ..., block=(x, y, z), grid=(x, y))
where a device array (GPUArray) is passed as it is and every scalar as a numpy scalar of the
kernel parameter's exact type (np.int32 for int, np.uint64 for unsigned long long): struct packs
each argument by its dtype, and a scalar of the wrong width shifts every argument after it."""
import numpy as np
from pycuda.compiler import SourceModule

LEVELS = 256       # kLevels of 01_kernels.cu: the bins, and the threads of the scan's and the LUT's one block
BLOCK = 256        # threads per block of the histogram and the map (grid-stride: any count works)
MAX_BLOCKS = 1024  # grid cap: about one full wave of BLOCK-thread blocks on an H100 (132 SMs x 8)
KERNELS = ("histogram_privatized", "scan_kogge_stone", "normalize_lut", "equalize")


# Step P1: compile `source` (the text of 01_kernels.cu) with SourceModule and return the kernels
#   by name (a dict of KERNELS works: the runner hands it back as `kernels`). Pitfall: by default
#   SourceModule wraps the whole source in extern "C" { ... }; this file declares its kernels
#   extern "C" itself, so tell SourceModule not to (see its no_extern_c argument).
def compile(source):
    raise NotImplementedError("TODO step P1: compile(): build 01_kernels.cu with SourceModule")


# Step P2: the grid of the two grid-stride kernels (histogram and map) for `pixels` pixels: one
#   thread per pixel, but never more than MAX_BLOCKS blocks (past that, what would more blocks
#   cost the histogram?). Pitfall: a launch needs at least one block, and plain Python ints.
def grid_for(pixels):
    raise NotImplementedError("TODO step P2: grid_for(): the number of blocks")


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
def histogram_equalization(kernels, ctx, image, out):
    raise NotImplementedError("TODO step P3: histogram_equalization(): the four stages")
