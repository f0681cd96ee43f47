"""Lab 1, Python track, PyCUDA: the host side of the integral image, as in the reports.

SourceModule hands 01_kernels.cu to nvcc (a separate process: the first call's time is mostly
this) and loads the cubin; a launch packs the arguments with struct and calls cuLaunchKernel."""
import numpy as np
from pycuda.compiler import SourceModule

BLOCK = 256        # threads per row scan: one section of the row at a time
TILE, TILE_ROWS = 32, 8
KERNELS = ("scan_rows_u8", "scan_rows_u32", "transpose_u32")


def compile(source):
    module = SourceModule(source, no_extern_c=True, options=["-std=c++17"])
    return {name: module.get_function(name) for name in KERNELS}


def transpose(kernels, src, dst):
    height, width = src.shape
    grid = ((width + TILE - 1) // TILE, (height + TILE - 1) // TILE)
    kernels["transpose_u32"](src, dst, np.int32(width), np.int32(height), block=(TILE, TILE_ROWS, 1), grid=grid)


def integral_image(kernels, ctx, image, table):
    height, width = image.shape
    rows = ctx.scratch("rows", (height, width), np.uint32)
    flipped = ctx.scratch("flipped", (width, height), np.uint32)
    columns = ctx.scratch("columns", (width, height), np.uint32)
    shared = BLOCK * np.dtype(np.uint32).itemsize
    kernels["scan_rows_u8"](image, rows, np.int32(width), block=(BLOCK, 1, 1), grid=(height, 1), shared=shared)
    ctx.end_stage()
    transpose(kernels, rows, flipped)
    ctx.end_stage()
    kernels["scan_rows_u32"](flipped, columns, np.int32(height), block=(BLOCK, 1, 1), grid=(width, 1), shared=shared)
    ctx.end_stage()
    transpose(kernels, columns, table)
    ctx.end_stage()
