# starter: generates labs/integral_image/python/04_numba.py
# starter: step optional Python track: kernels and host in Python, with Numba
# starter: prompt
#> """Lab 1, Python track, Numba: the kernels and the host side in Python.
#>
#> @cuda.jit compiles a kernel the first time it is launched with a new set of argument types
#> (Python -> Numba IR -> LLVM IR -> NVVM -> PTX, then the driver's JIT to machine code): the first
#> call pays for two scans (uint8 and uint32 rows) and the transpose. Each later launch still checks
#> the argument types in Python before it calls the driver. Write steps N1 to N4, then grade: the
#> row stays TODO until integral_image() (N4) is written. Without a GPU, Numba's CUDA simulator runs
#> the kernels on the CPU, slowly: `./labkit grade integral_image --variants 'numba*' --python-simulate
#> --max-case-pixels 64 --sizes 1x1,7x3 --no-perf` (docs/python_track.md says how to reach the carry
#> between sections and more than one tile there).
#>
#> Numba's reference: https://nvidia.github.io/numba-cuda/ (user guide: writing kernels, shared
#> memory and thread synchronization, the CUDA simulator). In general terms a launch is
#> kernel[grid, block](arg, arg, ...)  with grid and block as ints or tuples and the device arrays
#> passed as they are. Inside a kernel: cuda.threadIdx, cuda.blockIdx (.x, .y);
#> cuda.shared.array(shape, type) with a shape known when the kernel compiles (a module constant:
#> Numba's shared arrays are static, so no shared-memory size is passed at the launch);
#> cuda.syncthreads().
#>
#> Pitfall, integer types: Numba types integers as NumPy does (a plain literal is int64, and int64
#> mixed with uint64 gives float64). Keep the scan's values unsigned (uint32(0) for a zero), so that
#> the table wraps modulo 2^32 as the contract says, on the GPU and in the simulator alike.
#>
#> The kernels below are compiled with debug=True, opt=False only so that their `raise` reaches the
#> runner as a TODO: without debug, Numba ignores an exception raised in a kernel, and an unwritten
#> kernel silently does nothing. When you write a kernel, delete its raise and make its decorator a
#> plain @cuda.jit: an unoptimized debug build runs many times slower."""
# starter: solution
"""Lab 1, Python track, Numba: the kernels and the host side in Python.

@cuda.jit compiles a kernel the first time it is launched with a new set of argument types
(Python -> Numba IR -> LLVM IR -> NVVM -> PTX, then the driver's JIT to machine code): the first
call pays for two scans (uint8 and uint32 rows) and the transpose. Each later launch still checks
the argument types in Python before it calls the driver."""
# starter: end
import numpy as np
# starter: instead from numba import cuda, uint32  # noqa: F401  (the type your kernels need)
from numba import cuda, uint32

BLOCK = 256
TILE, TILE_ROWS = 32, 8
# starter: solution
TILE_PITCH = TILE + 1  # a padded tile row: a column of the tile hits 32 banks (a global: shared.array's shape must be a constant)
# starter: end


# starter: prompt
# Step N1: the inclusive scan of row cuda.blockIdx.x of src into the same row of dst (uint32,
#   wrapping modulo 2^32), BLOCK elements at a time, Kogge-Stone in a shared array of BLOCK
#   uint32 words, as step K1 of 01_kernels.cu describes: threads past the end of the row take
#   part in every step and barrier with a neutral value; two barriers per step (which race does
#   each prevent?); a carry of the sections before; a barrier before the next section overwrites
#   the shared array (why?). One kernel serves both scans: Numba compiles it once per set of
#   argument types (uint8 rows, then uint32 rows).
#> @cuda.jit(debug=True, opt=False)
# starter: solution
@cuda.jit
# starter: end
def scan_rows(src, dst):
    # starter: prompt
    #> raise NotImplementedError("TODO step N1: scan_rows(): the row scan")
    # starter: solution
    """One row per block, BLOCK elements at a time, Kogge-Stone in shared memory (01_kernels.cu)."""
    section = cuda.shared.array(BLOCK, uint32)
    y, t = cuda.blockIdx.x, cuda.threadIdx.x
    width = src.shape[1]
    carry = uint32(0)
    for base in range(0, width, BLOCK):
        x = base + t
        section[t] = src[y, x] if x < width else 0
        stride = 1
        while stride < BLOCK:
            cuda.syncthreads()
            add = section[t - stride] if t >= stride else uint32(0)
            cuda.syncthreads()
            section[t] += add
            stride *= 2
        cuda.syncthreads()
        if x < width:
            dst[y, x] = carry + section[t]
        carry += section[BLOCK - 1]
        cuda.syncthreads()
    # starter: end


# starter: prompt
# Step N2: dst (width, height) = the transpose of src (height, width), one TILE x TILE tile per
#   block of TILE x TILE_ROWS threads, through a shared TILE x (TILE + 1) uint32 tile (its shape must be constants Numba knows
#   when it compiles: names defined at the top of this file, not an expression such as TILE + 1): load along
#   input rows, one barrier, store along output rows, reading the tile by columns (why the extra
#   column?). Pitfall: partial tiles at the right and bottom edges; the load checks the input's
#   size, the store the output's.
#> @cuda.jit(debug=True, opt=False)
# starter: solution
@cuda.jit
# starter: end
def transpose_tiles(src, dst):
    # starter: prompt
    #> raise NotImplementedError("TODO step N2: transpose_tiles(): the tiled transpose")
    # starter: solution
    tile = cuda.shared.array((TILE, TILE_PITCH), uint32)
    height, width = src.shape
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    for j in range(ty, TILE, TILE_ROWS):
        y = cuda.blockIdx.y * TILE + j
        if x < width and y < height:
            tile[j, tx] = src[y, x]
    cuda.syncthreads()  # the tile is whole before any thread reads another thread's element
    out_x = cuda.blockIdx.y * TILE + tx
    for j in range(ty, TILE, TILE_ROWS):
        out_y = cuda.blockIdx.x * TILE + j
        if out_x < height and out_y < width:
            dst[out_y, out_x] = tile[tx, j]
    # starter: end


def compile(source):
    return {"scan_rows": scan_rows, "transpose": transpose_tiles}  # compiled at their first launch


# starter: prompt
# Step N3: launch the transpose of src into dst: one block per tile (not per pixel), the grid
#   covering partial tiles at the edges too.
# starter: end
def transpose(kernels, src, dst):
    # starter: prompt
    #> raise NotImplementedError("TODO step N3: transpose(): launch the transpose kernel")
    # starter: solution
    height, width = src.shape
    grid = ((width + TILE - 1) // TILE, (height + TILE - 1) // TILE)
    kernels["transpose"][grid, (TILE, TILE_ROWS)](src, dst)
    # starter: end


# starter: prompt
# Step N4: the four passes, each followed by ctx.end_stage() (the report times each one): scan
#   the rows of image, transpose, scan the rows of the transposed image (the columns of the
#   original), transpose back into table. One block of BLOCK threads per row. The intermediate
#   images come from ctx.scratch (uint32; which shapes?): never allocate in here. image and table
#   are dense (height, width) device arrays.
# starter: end
def integral_image(kernels, ctx, image, table):
    # starter: prompt
    #> raise NotImplementedError("TODO step N4: integral_image(): scan, transpose, scan, transpose")
    # starter: solution
    height, width = image.shape
    rows = ctx.scratch("rows", (height, width), np.uint32)
    flipped = ctx.scratch("flipped", (width, height), np.uint32)
    columns = ctx.scratch("columns", (width, height), np.uint32)
    kernels["scan_rows"][height, BLOCK](image, rows)
    ctx.end_stage()
    transpose(kernels, rows, flipped)
    ctx.end_stage()
    kernels["scan_rows"][width, BLOCK](flipped, columns)
    ctx.end_stage()
    transpose(kernels, columns, table)
    ctx.end_stage()
    # starter: end
