# Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
"""Lab 2, Python track, CuPy: the host side of histogram equalization.

RawModule compiles 01_kernels.cu in-process with NVRTC on first use (get_function) and caches the
result. Write the kernels of 01_kernels.cu first (steps K1 to K4), then steps C1 to C3 here.

CuPy's reference: https://docs.cupy.dev/en/stable/user_guide/kernel.html (Raw kernels, and
cupy.RawModule). In general terms a launch is
    kernel(grid, block, (arg, arg, ...), shared_mem=bytes)
with grid and block as tuples of ints, the arguments as one tuple, a device array (cupy.ndarray)
passed as it is and every scalar as a numpy scalar of the kernel parameter's exact type
(np.int32 for int, np.uint64 for unsigned long long): CuPy passes a scalar by its dtype, whatever
the kernel declares."""
import cupy as cp
import numpy as np

LEVELS = 256       # kLevels of 01_kernels.cu: the bins, and the threads of the scan's and the LUT's one block
BLOCK = 256        # threads per block of the histogram and the map (grid-stride: any count works)
MAX_BLOCKS = 1024  # grid cap: about one full wave of BLOCK-thread blocks on an H100 (132 SMs x 8)
KERNELS = ("histogram_privatized", "scan_kogge_stone", "normalize_lut", "equalize")


# Step C1: compile `source` (the text of 01_kernels.cu) as a RawModule and return its kernels by
#   name (a dict of KERNELS works: the runner hands it back as `kernels`). The kernels are
#   extern "C", so their names are as written; 01_kernels.cu uses constexpr: which C++ standard
#   does NVRTC need for it (see RawModule's options)?
def compile(source):
    raise NotImplementedError("TODO step C1: compile(): build 01_kernels.cu as a cupy.RawModule")


# Step C2: the grid of the two grid-stride kernels (histogram and map) for `pixels` pixels, as a
#   tuple: one thread per pixel, but never more than MAX_BLOCKS blocks (past that, what would
#   more blocks cost the histogram?). Pitfall: a launch needs at least one block.
def grid_for(pixels):
    raise NotImplementedError("TODO step C2: grid_for(): the number of blocks")


# Step C3: the four stages, each followed by ctx.end_stage() (the report times each one):
#   1. histogram: zero the histogram (ctx.zero, inside this stage: it is part of the work), then
#      histogram_privatized on the image;
#   2. scan: scan_kogge_stone, one block of LEVELS threads;
#   3. normalize: normalize_lut, one block of LEVELS threads;
#   4. equalize: equalize, from image to out.
#   The histogram, the CDF and the LUT are LEVELS-entry device arrays from ctx.scratch (uint32,
#   uint32, uint8): never allocate in here, and never assume a scratch array holds zeros (it is
#   poisoned before every run). image and out are dense (height, width) cupy arrays.
#   Why is no synchronization needed between the four launches?
def histogram_equalization(kernels, ctx, image, out):
    raise NotImplementedError("TODO step C3: histogram_equalization(): the four stages")
