# Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
"""Lab 1, Python track, PyCUDA: the host side of the integral image.

SourceModule hands 01_kernels.cu to nvcc (a separate process: the first call's time is mostly
this) and loads the cubin; a launch packs the arguments with struct and calls cuLaunchKernel.
Write the kernels of 01_kernels.cu first (steps K1 and K2), then steps P1 to P3 here.

PyCUDA's reference: https://documen.tician.de/pycuda/driver.html (pycuda.compiler.SourceModule,
and Function: calling a kernel). In general terms a launch is
    function(arg, arg, ..., block=(x, y, z), grid=(x, y), shared=bytes)
where `shared` is the size of the kernel's dynamic shared memory (extern __shared__), a device
array (GPUArray) is passed as it is and every scalar as a numpy scalar of the kernel parameter's
exact type (np.int32 for int): struct packs each argument by its dtype, and a scalar of the
wrong width shifts every argument after it."""
import numpy as np
from pycuda.compiler import SourceModule

BLOCK = 256        # threads per row scan: one section of the row at a time
TILE, TILE_ROWS = 32, 8
KERNELS = ("scan_rows_u8", "scan_rows_u32", "transpose_u32")


# Step P1: compile `source` (the text of 01_kernels.cu) with SourceModule and return the kernels
#   by name (a dict of KERNELS works: the runner hands it back as `kernels`). Pitfall: by default
#   SourceModule wraps the whole source in extern "C" { ... }, and a template (scan_row) cannot
#   be extern "C"; this file declares its kernels extern "C" itself, so tell SourceModule not to
#   (see its no_extern_c argument). The file uses constexpr: which C++ standard does it need?
def compile(source):
    raise NotImplementedError("TODO step P1: compile(): build 01_kernels.cu with SourceModule")


# Step P2: transpose the uint32 device array src (height, width) into dst (width, height) with
#   transpose_u32: one block of TILE x TILE_ROWS threads per TILE x TILE tile (not per pixel),
#   the grid covering partial tiles at the edges too.
def transpose(kernels, src, dst):
    raise NotImplementedError("TODO step P2: transpose(): launch transpose_u32")


# Step P3: the four passes, each followed by ctx.end_stage() (the report times each one): scan
#   the rows of image, transpose, scan the rows of the transposed image (the columns of the
#   original), transpose back into table. One block of BLOCK threads per row, BLOCK uint32 words
#   of dynamic shared memory. The intermediate images come from ctx.scratch (uint32; which
#   shapes?): never allocate in here. image and table are dense (height, width) GPUArrays.
#   Why is no synchronization needed between the launches?
def integral_image(kernels, ctx, image, table):
    raise NotImplementedError("TODO step P3: integral_image(): scan, transpose, scan, transpose")
