# Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
"""Lab 1, Python track, CuPy: the host side of the integral image.

RawModule compiles 01_kernels.cu in-process with NVRTC on first use (get_function) and caches the
result. Write the kernels of 01_kernels.cu first (steps K1 and K2), then steps C1 to C3 here.

CuPy's reference: https://docs.cupy.dev/en/stable/user_guide/kernel.html (Raw kernels, and
cupy.RawModule). In general terms a launch is
    kernel(grid, block, (arg, arg, ...), shared_mem=bytes)
with grid and block as tuples of ints, the arguments as one tuple, `shared_mem` the size of the
kernel's dynamic shared memory (extern __shared__), a device array (cupy.ndarray) passed as it is
and every scalar as a numpy scalar of the kernel parameter's exact type (np.int32 for int): CuPy
passes a scalar by its dtype, whatever the kernel declares."""
import cupy as cp
import numpy as np

BLOCK = 256
TILE, TILE_ROWS = 32, 8
KERNELS = ("scan_rows_u8", "scan_rows_u32", "transpose_u32")


# Step C1: compile `source` (the text of 01_kernels.cu) as a RawModule and return its kernels by
#   name (a dict of KERNELS works: the runner hands it back as `kernels`). The kernels are
#   extern "C", so their names are as written; the file uses constexpr: which C++ standard does
#   NVRTC need for it (see RawModule's options)?
def compile(source):
    raise NotImplementedError("TODO step C1: compile(): build 01_kernels.cu as a cupy.RawModule")


# Step C2: transpose the uint32 device array src (height, width) into dst (width, height) with
#   transpose_u32: one block of TILE x TILE_ROWS threads per TILE x TILE tile (not per pixel),
#   the grid covering partial tiles at the edges too.
def transpose(kernels, src, dst):
    raise NotImplementedError("TODO step C2: transpose(): launch transpose_u32")


# Step C3: the four passes, each followed by ctx.end_stage() (the report times each one): scan
#   the rows of image, transpose, scan the rows of the transposed image (the columns of the
#   original), transpose back into table. One block of BLOCK threads per row, BLOCK uint32 words
#   of dynamic shared memory. The intermediate images come from ctx.scratch (uint32; which
#   shapes?): never allocate in here. image and table are dense (height, width) cupy arrays.
#   Why is no synchronization needed between the launches?
def integral_image(kernels, ctx, image, table):
    raise NotImplementedError("TODO step C3: integral_image(): scan, transpose, scan, transpose")
