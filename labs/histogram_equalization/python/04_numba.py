# Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
"""Lab 2, Python track, Numba: the kernels and the host side in Python.

@cuda.jit compiles a kernel the first time it is launched with a new set of argument types
(Python -> Numba IR -> LLVM IR -> NVVM -> PTX, then the driver's JIT to machine code): the first
call pays for all four. Write steps N1 to N5, then grade: the row stays TODO until
histogram_equalization() (N5) is written. Without a GPU, Numba's CUDA simulator runs the kernels
on the CPU, slowly: `./labkit grade histogram_equalization --variants 'numba*' --python-simulate
--max-case-pixels 64 --sizes 1x1,7x3 --no-perf`.

Numba's reference: https://nvidia.github.io/numba-cuda/ (user guide: writing kernels, shared
memory and thread synchronization, supported atomic operations, the CUDA simulator). In general
terms a launch is  kernel[grid, block](arg, arg, ...)  with the device arrays passed as they are.
Inside a kernel: cuda.threadIdx.x, cuda.blockIdx.x, cuda.blockDim.x, cuda.grid(1) and
cuda.gridsize(1); cuda.shared.array(shape, type) with a shape known when the kernel compiles (a
module constant); cuda.syncthreads(); cuda.atomic.add(array, index, value).

Pitfall, integer types: Numba types integers as NumPy does. A plain literal is int64, and NumPy
has no integer type that holds both uint64 and int64: mixing them gives a float64 (silently
inexact past 2^53). Wherever you compute in uint64, cast every operand (uint64(x)).

The kernels below are compiled with debug=True, opt=False only so that their `raise` reaches the
runner as a TODO: without debug, Numba ignores an exception raised in a kernel, and an unwritten
kernel silently does nothing. When you write a kernel, delete its raise and make its decorator a
plain @cuda.jit: an unoptimized debug build runs many times slower."""
import numpy as np
from numba import cuda, uint8, uint32, uint64  # noqa: F401  (the types your kernels need)

LEVELS = 256       # gray levels: the bins, and the threads of the scan's and the LUT's one block
BLOCK = 256        # threads per block of the histogram and the map (grid-stride: any count works)
MAX_BLOCKS = 1024  # grid cap: about one full wave of BLOCK-thread blocks on an H100 (132 SMs x 8)


# Step N1: hist[v] += the number of pixels of value v, `pixels` being the image as one flat
#   uint8 array (see step N5). As in 01_kernels.cu: a private shared histogram of LEVELS uint32
#   counters, zeroed by the block (any block size); the pixels counted in a grid-stride loop with
#   atomics on the shared histogram (cuda.grid(1) and cuda.gridsize(1)); each non-zero bin added
#   to hist with one global atomic. Two barriers belong here; say in a comment which race each
#   prevents.
@cuda.jit(debug=True, opt=False)
def histogram_privatized(pixels, hist):
    raise NotImplementedError("TODO step N1: histogram_privatized(): the privatized histogram")


# Step N2: cdf = the inclusive scan of hist: one block of LEVELS threads, one bin each,
#   Kogge-Stone in a shared array (log2(LEVELS) steps, a doubling stride). Two barriers per step
#   (which race does each prevent?). Pitfall: every thread must reach every cuda.syncthreads().
@cuda.jit(debug=True, opt=False)
def scan_kogge_stone(hist, cdf):
    raise NotImplementedError("TODO step N2: scan_kogge_stone(): the scan of the bins")


# Step N3: lut from cdf by the contract (histogram_equalization.hpp), one thread per entry, one
#   block of LEVELS threads; `pixels` is N. cdf_min lives in a one-element shared array: can you
#   find it without an atomic, knowing that a CDF never decreases? The arithmetic is 64-bit and
#   unsigned: cast every operand, literals included (see the integer pitfall above). Mind the
#   entries below the first non-zero bin and the single-valued image (N == cdf_min).
@cuda.jit(debug=True, opt=False)
def normalize_lut(cdf, lut, pixels):
    raise NotImplementedError("TODO step N3: normalize_lut(): the LUT")


# Step N4: out[i] = lut[pixels[i]] on flat arrays: the LUT staged in a shared uint8 array (any
#   block size), one barrier (where, and why?), then a grid-stride loop over the pixels.
@cuda.jit(debug=True, opt=False)
def equalize(pixels, out, lut):
    raise NotImplementedError("TODO step N4: equalize(): the map")


def compile(source):
    return {"histogram": histogram_privatized, "scan": scan_kogge_stone, "normalize": normalize_lut,
            "equalize": equalize}  # compiled at their first launch


# Step N5: the four stages, each followed by ctx.end_stage() (the report times each one):
#   1. histogram: zero the histogram (ctx.zero, inside this stage: it is part of the work), then
#      the histogram kernel; 2. the scan (one block of LEVELS threads); 3. the LUT (one block of
#      LEVELS threads; pass N as np.uint64); 4. the map, from image to out.
#   image and out are dense (height, width) device arrays: reshape gives flat views of them
#   without a copy. The grid of the histogram and the map: one thread per pixel, at most
#   MAX_BLOCKS blocks, at least one. The histogram, the CDF and the LUT are LEVELS-entry device
#   arrays from ctx.scratch (uint32, uint32, uint8): never allocate in here, and never assume a
#   scratch array holds zeros (it is poisoned before every run).
def histogram_equalization(kernels, ctx, image, out):
    raise NotImplementedError("TODO step N5: histogram_equalization(): the four stages")
