# starter: generates labs/histogram_equalization/python/04_numba.py
# starter: step optional Python track: kernels and host in Python, with Numba
# starter: prompt
#> """Lab 2, Python track, Numba: the kernels and the host side in Python.
#>
#> @cuda.jit compiles a kernel the first time it is launched with a new set of argument types
#> (Python -> Numba IR -> LLVM IR -> NVVM -> PTX, then the driver's JIT to machine code): the first
#> call pays for all four. Write steps N1 to N5, then grade: the row stays TODO until
#> histogram_equalization() (N5) is written. Without a GPU, Numba's CUDA simulator runs the kernels
#> on the CPU, slowly: `./labkit grade histogram_equalization --variants 'numba*' --python-simulate
#> --max-case-pixels 64 --sizes 1x1,7x3 --no-perf`.
#>
#> Numba's reference: https://nvidia.github.io/numba-cuda/ (user guide: writing kernels, shared
#> memory and thread synchronization, supported atomic operations, the CUDA simulator). In general
#> terms a launch is  kernel[grid, block](arg, arg, ...)  with the device arrays passed as they are.
#> Inside a kernel: cuda.threadIdx.x, cuda.blockIdx.x, cuda.blockDim.x, cuda.grid(1) and
#> cuda.gridsize(1); cuda.shared.array(shape, type) with a shape known when the kernel compiles (a
#> module constant); cuda.syncthreads(); cuda.atomic.add(array, index, value).
#>
#> Pitfall, integer types: Numba types integers as NumPy does. A plain literal is int64, and NumPy
#> has no integer type that holds both uint64 and int64: mixing them gives a float64 (silently
#> inexact past 2^53). Wherever you compute in uint64, cast every operand (uint64(x)).
#>
#> The kernels below are compiled with debug=True, opt=False only so that their `raise` reaches the
#> runner as a TODO: without debug, Numba ignores an exception raised in a kernel, and an unwritten
#> kernel silently does nothing. When you write a kernel, delete its raise and make its decorator a
#> plain @cuda.jit: an unoptimized debug build runs many times slower."""
# starter: solution
"""Lab 2, Python track, Numba: the kernels and the host side in Python.

@cuda.jit compiles a kernel the first time it is launched with a new set of argument types
(Python -> Numba IR -> LLVM IR -> NVVM -> PTX, then the driver's JIT to machine code): the first
call pays for all four. Numba types integers as NumPy does, and NumPy has no common integer type
for uint64 and int64: mixing them gives a float64, so the 64-bit LUT arithmetic casts every
operand to uint64. The kernels see the image as one flat array (the runner's images are dense)."""
# starter: end
import numpy as np
# starter: instead from numba import cuda, uint8, uint32, uint64  # noqa: F401  (the types your kernels need)
from numba import cuda, uint8, uint32, uint64

LEVELS = 256       # gray levels: the bins, and the threads of the scan's and the LUT's one block
BLOCK = 256        # threads per block of the histogram and the map (grid-stride: any count works)
MAX_BLOCKS = 1024  # grid cap: about one full wave of BLOCK-thread blocks on an H100 (132 SMs x 8)


# starter: prompt
# Step N1: hist[v] += the number of pixels of value v, `pixels` being the image as one flat
#   uint8 array (see step N5). As in 01_kernels.cu: a private shared histogram of LEVELS uint32
#   counters, zeroed by the block (any block size); the pixels counted in a grid-stride loop with
#   atomics on the shared histogram (cuda.grid(1) and cuda.gridsize(1)); each non-zero bin added
#   to hist with one global atomic. Two barriers belong here; say in a comment which race each
#   prevents.
#> @cuda.jit(debug=True, opt=False)
# starter: solution
@cuda.jit
# starter: end
def histogram_privatized(pixels, hist):
    # starter: prompt
    #> raise NotImplementedError("TODO step N1: histogram_privatized(): the privatized histogram")
    # starter: solution
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
    # starter: end


# starter: prompt
# Step N2: cdf = the inclusive scan of hist: one block of LEVELS threads, one bin each,
#   Kogge-Stone in a shared array (log2(LEVELS) steps, a doubling stride). Two barriers per step
#   (which race does each prevent?). Pitfall: every thread must reach every cuda.syncthreads().
#> @cuda.jit(debug=True, opt=False)
# starter: solution
@cuda.jit
# starter: end
def scan_kogge_stone(hist, cdf):
    # starter: prompt
    #> raise NotImplementedError("TODO step N2: scan_kogge_stone(): the scan of the bins")
    # starter: solution
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
    # starter: end


# starter: prompt
# Step N3: lut from cdf by the contract (histogram_equalization.hpp), one thread per entry, one
#   block of LEVELS threads; `pixels` is N. cdf_min lives in a one-element shared array: can you
#   find it without an atomic, knowing that a CDF never decreases? The arithmetic is 64-bit and
#   unsigned: cast every operand, literals included (see the integer pitfall above). Mind the
#   entries below the first non-zero bin and the single-valued image (N == cdf_min).
#> @cuda.jit(debug=True, opt=False)
# starter: solution
@cuda.jit
# starter: end
def normalize_lut(cdf, lut, pixels):
    # starter: prompt
    #> raise NotImplementedError("TODO step N3: normalize_lut(): the LUT")
    # starter: solution
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
    # starter: end


# starter: prompt
# Step N4: out[i] = lut[pixels[i]] on flat arrays: the LUT staged in a shared uint8 array (any
#   block size), one barrier (where, and why?), then a grid-stride loop over the pixels.
#> @cuda.jit(debug=True, opt=False)
# starter: solution
@cuda.jit
# starter: end
def equalize(pixels, out, lut):
    # starter: prompt
    #> raise NotImplementedError("TODO step N4: equalize(): the map")
    # starter: solution
    """out[i] = lut[pixels[i]], grid-stride, the LUT staged in shared memory once per block."""
    table = cuda.shared.array(LEVELS, uint8)
    for v in range(cuda.threadIdx.x, LEVELS, cuda.blockDim.x):
        table[v] = lut[v]
    cuda.syncthreads()  # the whole table is loaded before any pixel looks it up
    for i in range(cuda.grid(1), pixels.size, cuda.gridsize(1)):
        out[i] = table[pixels[i]]
    # starter: end


def compile(source):
    return {"histogram": histogram_privatized, "scan": scan_kogge_stone, "normalize": normalize_lut,
            "equalize": equalize}  # compiled at their first launch


# starter: prompt
# Step N5: the four stages, each followed by ctx.end_stage() (the report times each one):
#   1. histogram: zero the histogram (ctx.zero, inside this stage: it is part of the work), then
#      the histogram kernel; 2. the scan (one block of LEVELS threads); 3. the LUT (one block of
#      LEVELS threads; pass N as np.uint64); 4. the map, from image to out.
#   image and out are dense (height, width) device arrays: reshape gives flat views of them
#   without a copy. The grid of the histogram and the map: one thread per pixel, at most
#   MAX_BLOCKS blocks, at least one. The histogram, the CDF and the LUT are LEVELS-entry device
#   arrays from ctx.scratch (uint32, uint32, uint8): never allocate in here, and never assume a
#   scratch array holds zeros (it is poisoned before every run).
# starter: end
def histogram_equalization(kernels, ctx, image, out):
    # starter: prompt
    #> raise NotImplementedError("TODO step N5: histogram_equalization(): the four stages")
    # starter: solution
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
    # starter: end
