"""Lab 2, Python track, Numba: the kernels and the host side in Python.

@cuda.jit compiles a kernel the first time it is launched with a new set of argument types
(Python -> Numba IR -> LLVM IR -> NVVM -> PTX, then the driver's JIT to machine code): the first
call pays for all four. Numba types integers as NumPy does, and NumPy has no common integer type
for uint64 and int64: mixing them gives a float64, so the 64-bit LUT arithmetic casts every
operand to uint64. The kernels see the image as one flat array (the runner's images are dense)."""
import numpy as np
from numba import cuda, uint8, uint32, uint64

LEVELS = 256       # gray levels: the bins, and the threads of the scan's and the LUT's one block
BLOCK = 256        # threads per block of the histogram and the map (grid-stride: any count works)
MAX_BLOCKS = 1024  # grid cap: about one full wave of BLOCK-thread blocks on an H100 (132 SMs x 8)


@cuda.jit
def histogram_privatized(pixels, hist):
    """hist[v] += the count of value v: a private histogram per block, merged (01_kernels.cu)."""
    local = cuda.shared.array(LEVELS, uint32)
    for b in range(cuda.threadIdx.x, LEVELS, cuda.blockDim.x):
        local[b] = 0
    cuda.syncthreads()  # every bin is zero before anyone counts into it
    for i in range(cuda.grid(1), pixels.size, cuda.gridsize(1)):
        cuda.atomic.add(local, pixels[i], uint32(1))
    cuda.syncthreads()  # every thread of the block has counted before its bins are merged
    for b in range(cuda.threadIdx.x, LEVELS, cuda.blockDim.x):
        if local[b] != 0:
            cuda.atomic.add(hist, b, local[b])


@cuda.jit
def scan_kogge_stone(hist, cdf):
    """cdf = the inclusive scan of hist: one block of LEVELS threads, one bin each."""
    xy = cuda.shared.array(LEVELS, uint32)
    t = cuda.threadIdx.x
    xy[t] = hist[t]
    stride = 1
    while stride < LEVELS:
        cuda.syncthreads()  # the load, or the previous step's writes, are visible before anyone reads
        left = xy[t - stride] if t >= stride else uint32(0)
        cuda.syncthreads()  # every read of this step is done before anyone overwrites an element
        xy[t] += left
        stride *= 2
    cdf[t] = xy[t]


@cuda.jit
def normalize_lut(cdf, lut, pixels):
    """lut[v] from the CDF, one thread per entry; cdf_min is the one entry whose left neighbour is 0."""
    cdf_min = cuda.shared.array(1, uint64)
    v = cuda.threadIdx.x
    here = uint64(cdf[v])
    if here != 0 and (v == 0 or cdf[v - 1] == 0):
        cdf_min[0] = here
    cuda.syncthreads()  # cdf_min is written before anyone reads it (an image has a pixel: someone writes it)
    span = uint64(pixels) - cdf_min[0]
    if span == 0:
        lut[v] = v  # a single-valued image is its own output
    elif here == 0:
        lut[v] = 0  # below the first non-zero bin: no pixel looks these up
    else:
        lut[v] = ((here - cdf_min[0]) * uint64(LEVELS - 1) + span // uint64(2)) // span


@cuda.jit
def equalize(pixels, out, lut):
    """out[i] = lut[pixels[i]], grid-stride, the LUT staged in shared memory once per block."""
    table = cuda.shared.array(LEVELS, uint8)
    for v in range(cuda.threadIdx.x, LEVELS, cuda.blockDim.x):
        table[v] = lut[v]
    cuda.syncthreads()  # the whole table is loaded before any pixel looks it up
    for i in range(cuda.grid(1), pixels.size, cuda.gridsize(1)):
        out[i] = table[pixels[i]]


def compile(source):
    return {"histogram": histogram_privatized, "scan": scan_kogge_stone, "normalize": normalize_lut,
            "equalize": equalize}  # compiled at their first launch


def histogram_equalization(kernels, ctx, image, out):
    height, width = image.shape
    count = height * width
    pixels, flat_out = image.reshape(count), out.reshape(count)  # views, no copies
    grid = min((count + BLOCK - 1) // BLOCK, MAX_BLOCKS)  # one thread per pixel, capped: grid-stride past that
    hist = ctx.scratch("hist", (LEVELS,), np.uint32)
    cdf = ctx.scratch("cdf", (LEVELS,), np.uint32)
    lut = ctx.scratch("lut", (LEVELS,), np.uint8)
    ctx.zero(hist)  # the kernel adds to the bins, and scratch arrays start poisoned
    kernels["histogram"][grid, BLOCK](pixels, hist)
    ctx.end_stage()
    kernels["scan"][1, LEVELS](hist, cdf)
    ctx.end_stage()
    kernels["normalize"][1, LEVELS](cdf, lut, np.uint64(count))
    ctx.end_stage()
    kernels["equalize"][grid, BLOCK](pixels, flat_out, lut)
    ctx.end_stage()
