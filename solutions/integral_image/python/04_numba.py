"""Lab 1, Python track, Numba: the kernels and the host side in Python.

@cuda.jit compiles a kernel the first time it is launched with a new set of argument types
(Python -> Numba IR -> LLVM IR -> NVVM -> PTX, then the driver's JIT to machine code): the first
call pays for two scans (uint8 and uint32 rows) and the transpose. Each later launch still checks
the argument types in Python before it calls the driver."""
import numpy as np
from numba import cuda, uint32

BLOCK = 256
TILE, TILE_ROWS = 32, 8
TILE_PITCH = TILE + 1  # a padded tile row: a column of the tile hits 32 banks (a global: shared.array's shape must be a constant)


@cuda.jit
def scan_rows(src, dst):
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


@cuda.jit
def transpose_tiles(src, dst):
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


def compile(source):
    return {"scan_rows": scan_rows, "transpose": transpose_tiles}  # compiled at their first launch


def transpose(kernels, src, dst):
    height, width = src.shape
    grid = ((width + TILE - 1) // TILE, (height + TILE - 1) // TILE)
    kernels["transpose"][grid, (TILE, TILE_ROWS)](src, dst)


def integral_image(kernels, ctx, image, table):
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
