# Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
"""Lab 1, Python track, Numba: the kernels and the host side in Python.

@cuda.jit compiles a kernel the first time it is launched with a new set of argument types
(Python -> Numba IR -> LLVM IR -> NVVM -> PTX, then the driver's JIT to machine code): the first
call pays for two scans (uint8 and uint32 rows) and the transpose. Each later launch still checks
the argument types in Python before it calls the driver. Write steps N1 to N4, then grade: the
row stays TODO until integral_image() (N4) is written. Without a GPU, Numba's CUDA simulator runs
the kernels on the CPU, slowly: `./labkit grade integral_image --variants 'numba*' --python-simulate
--max-case-pixels 64 --sizes 1x1,7x3 --no-perf` (docs/python_track.md says how to reach the carry
between sections and more than one tile there).

Numba's reference: https://nvidia.github.io/numba-cuda/ (user guide: writing kernels, shared
memory and thread synchronization, the CUDA simulator). In general terms a launch is
kernel[grid, block](arg, arg, ...)  with grid and block as ints or tuples and the device arrays
passed as they are. Inside a kernel: cuda.threadIdx, cuda.blockIdx (.x, .y);
cuda.shared.array(shape, type) with a shape known when the kernel compiles (a module constant:
Numba's shared arrays are static, so no shared-memory size is passed at the launch);
cuda.syncthreads().

Pitfall, integer types: Numba types integers as NumPy does (a plain literal is int64, and int64
mixed with uint64 gives float64). Keep the scan's values unsigned (uint32(0) for a zero), so that
the table wraps modulo 2^32 as the contract says, on the GPU and in the simulator alike.

The kernels below are compiled with debug=True, opt=False only so that their `raise` reaches the
runner as a TODO: without debug, Numba ignores an exception raised in a kernel, and an unwritten
kernel silently does nothing. When you write a kernel, delete its raise and make its decorator a
plain @cuda.jit: an unoptimized debug build runs many times slower."""
import numpy as np
from numba import cuda, uint32  # noqa: F401  (the type your kernels need)

BLOCK = 256
TILE, TILE_ROWS = 32, 8


# Step N1: the inclusive scan of row cuda.blockIdx.x of src into the same row of dst (uint32,
#   wrapping modulo 2^32), BLOCK elements at a time, Kogge-Stone in a shared array of BLOCK
#   uint32 words, as step K1 of 01_kernels.cu describes: threads past the end of the row take
#   part in every step and barrier with a neutral value; two barriers per step (which race does
#   each prevent?); a carry of the sections before; a barrier before the next section overwrites
#   the shared array (why?). One kernel serves both scans: Numba compiles it once per set of
#   argument types (uint8 rows, then uint32 rows).
@cuda.jit(debug=True, opt=False)
def scan_rows(src, dst):
    raise NotImplementedError("TODO step N1: scan_rows(): the row scan")


# Step N2: dst (width, height) = the transpose of src (height, width), one TILE x TILE tile per
#   block of TILE x TILE_ROWS threads, through a shared TILE x (TILE + 1) uint32 tile (its shape must be constants Numba knows
#   when it compiles: names defined at the top of this file, not an expression such as TILE + 1): load along
#   input rows, one barrier, store along output rows, reading the tile by columns (why the extra
#   column?). Pitfall: partial tiles at the right and bottom edges; the load checks the input's
#   size, the store the output's.
@cuda.jit(debug=True, opt=False)
def transpose_tiles(src, dst):
    raise NotImplementedError("TODO step N2: transpose_tiles(): the tiled transpose")


def compile(source):
    return {"scan_rows": scan_rows, "transpose": transpose_tiles}  # compiled at their first launch


# Step N3: launch the transpose of src into dst: one block per tile (not per pixel), the grid
#   covering partial tiles at the edges too.
def transpose(kernels, src, dst):
    raise NotImplementedError("TODO step N3: transpose(): launch the transpose kernel")


# Step N4: the four passes, each followed by ctx.end_stage() (the report times each one): scan
#   the rows of image, transpose, scan the rows of the transposed image (the columns of the
#   original), transpose back into table. One block of BLOCK threads per row. The intermediate
#   images come from ctx.scratch (uint32; which shapes?): never allocate in here. image and table
#   are dense (height, width) device arrays.
def integral_image(kernels, ctx, image, table):
    raise NotImplementedError("TODO step N4: integral_image(): scan, transpose, scan, transpose")
