"""Lab 1, Python track, CuPy: the host side of the integral image.

RawModule compiles 01_kernels.cu in-process with NVRTC on first use (get_function) and caches the
result; a launch is kernel(grid, block, args) with the arrays passed as they are."""
import cupy as cp
import numpy as np

BLOCK = 256
TILE, TILE_ROWS = 32, 8
KERNELS = ("scan_rows_u8", "scan_rows_u32", "transpose_u32")


def compile(source):
    module = cp.RawModule(code=source, options=("-std=c++17",))
    return {name: module.get_function(name) for name in KERNELS}


def transpose(kernels, src, dst):
    height, width = src.shape
    grid = ((width + TILE - 1) // TILE, (height + TILE - 1) // TILE)
    kernels["transpose_u32"](grid, (TILE, TILE_ROWS), (src, dst, np.int32(width), np.int32(height)))


def integral_image(kernels, ctx, image, table):
    height, width = image.shape
    rows = ctx.scratch("rows", (height, width), np.uint32)
    flipped = ctx.scratch("flipped", (width, height), np.uint32)
    columns = ctx.scratch("columns", (width, height), np.uint32)
    shared = BLOCK * np.dtype(np.uint32).itemsize
    kernels["scan_rows_u8"]((height,), (BLOCK,), (image, rows, np.int32(width)), shared_mem=shared)
    ctx.end_stage()
    transpose(kernels, rows, flipped)
    ctx.end_stage()
    kernels["scan_rows_u32"]((width,), (BLOCK,), (flipped, columns, np.int32(height)), shared_mem=shared)
    ctx.end_stage()
    transpose(kernels, columns, table)
    ctx.end_stage()
