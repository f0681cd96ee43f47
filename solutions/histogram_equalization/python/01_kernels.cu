// starter: generates labs/histogram_equalization/python/01_kernels.cu
// starter: step optional Python track: its kernels in CUDA C, which PyCUDA and CuPy compile
// Lab 2, Python track: the kernels PyCUDA (02_pycuda.py) and CuPy (03_cupy.py) compile at run time
// (nvcc and NVRTC). The same four stages as the native 02_shared_privatized.cu, 04_scan.cu
// (Kogge-Stone) and 05_equalize.cu, written as extern "C" kernels so that Python finds them by
// starter: prompt
// name (C++ would mangle the names), on the image as one flat array of width * height bytes
// (the runner's images are dense: pixel (x, y) is in[y * width + x]).
// starter: solution
// name, on the image as one flat array of width * height bytes (the runner's images are dense).
// starter: end
//
// starter: prompt
// Changes against the native steps: the histogram and the map walk the pixels with a grid-stride
// loop, so Python can launch a capped number of blocks; the launch configuration, the scratch
// arrays and the order of the stages move to Python.
// starter: solution
// Changes against the native steps: the histogram walks the pixels with a grid-stride loop, so
// Python picks a capped number of blocks instead of one thread per pixel; the launch
// configuration, the scratch arrays and the order of the stages move to Python.
// starter: end
// Cost: 1 B/px read by the histogram, 1 B/px read + 1 B/px written by the map: the 3 B/px floor.
// The scan and the LUT touch 256 entries each: their time is the launch.
// Limits: a bin counts up to 2^32 - 1 pixels; the pixel index and the LUT arithmetic are 64-bit.
// scan_kogge_stone and normalize_lut need exactly kLevels threads in one block.
// Reference: PMPP 4th ed., section 9.4 (privatization) and chapter 11 (scan); Kogge & Stone
// (1973); Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3.
// starter: prompt
//
// Write these four kernels first (steps K1 to K4): the host files only launch them, and a kernel
// left empty runs, does nothing, and shows up as a wrong answer, not as a TODO.
// Keep this file free of #include: NVRTC (CuPy) compiles it without the C++ standard headers.
// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.
// starter: end

// starter: instead [[maybe_unused]] constexpr int kLevels = 256;  // gray levels: the histogram's bins, the LUT's entries
constexpr int kLevels = 256;  // gray levels: the histogram's bins, the LUT's entries

// starter: prompt
// hist[v] += the number of pixels of value v. The host zeroes hist before the launch.
// starter: solution
// hist[v] += the number of pixels of value v (hist is zeroed by the host first). Each block counts
// into its own shared histogram, with cheap shared atomics, then adds each non-zero bin to the
// global one: at most kLevels global atomics per block instead of one per pixel.
// starter: end
extern "C" __global__ void histogram_privatized(const unsigned char* in, unsigned* hist, unsigned long long pixels) {
    // starter: prompt
    // TODO(step K1a): a private histogram of kLevels counters in shared memory, zeroed by the
    //   block. Pitfall: the block may have more or fewer threads than there are bins; write the
    //   loop so that any block size works.
    //
    // TODO(step K1b): count the pixels into the private histogram with shared-memory atomics, in
    //   a grid-stride loop (first index: this thread's global index; step: every thread of the
    //   grid). Pitfall: pixels is 64-bit; compute the index and the stride in the same type, so
    //   that nothing is done in 32 bits on the way.
    //
    // TODO(step K1c): merge: add each non-zero private bin to hist, one global atomic per bin.
    //   Two barriers belong in this kernel; for each, write a comment saying which race it
    //   prevents.
    // starter: solution
    __shared__ unsigned local[kLevels];
    for (int b = threadIdx.x; b < kLevels; b += blockDim.x) local[b] = 0;
    __syncthreads();  // every bin is zero before anyone counts into it
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += stride)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();  // every thread of the block has counted before its bins are merged
    for (int b = threadIdx.x; b < kLevels; b += blockDim.x)
        if (local[b] != 0) atomicAdd(&hist[b], local[b]);
    // starter: end
}

// starter: prompt
// cdf[v] = hist[0] + ... + hist[v] (inclusive). One block of kLevels threads, one bin each.
// starter: solution
// cdf[v] = hist[0] + ... + hist[v]: one block of kLevels threads, one bin each, Kogge-Stone in
// shared memory (log2(kLevels) = 8 steps of "add the element `stride` to my left").
// starter: end
extern "C" __global__ void scan_kogge_stone(const unsigned* hist, unsigned* cdf) {
    // starter: prompt
    // TODO(step K2): load the bins into shared memory, then log2(kLevels) Kogge-Stone steps with
    //   a doubling stride, each thread adding the element `stride` places to its left. Each step
    //   needs two barriers (or two buffers and one); say in a comment which race each prevents.
    //   Pitfall: a barrier inside an `if` that not every thread takes is undefined behaviour.
    // starter: solution
    __shared__ unsigned xy[kLevels];
    const int t = threadIdx.x;
    xy[t] = hist[t];
    for (int stride = 1; stride < kLevels; stride *= 2) {
        __syncthreads();  // the load, or the previous step's writes, are visible before anyone reads
        const unsigned left = t >= stride ? xy[t - stride] : 0u;
        __syncthreads();  // every read of this step is done before anyone overwrites an element
        xy[t] += left;
    }
    cdf[t] = xy[t];
    // starter: end
}

// starter: prompt
// lut[v] from the CDF by the contract (histogram_equalization.hpp), one thread per entry.
// pixels = N = width * height. One block of kLevels threads.
// starter: solution
// lut[v] from the CDF, one thread per entry. cdf_min needs no atomic: the CDF never decreases, so
// the first non-zero entry is the only one whose left neighbour is zero (or that has none).
// starter: end
extern "C" __global__ void normalize_lut(const unsigned* cdf, unsigned char* lut, unsigned long long pixels) {
    // starter: prompt
    // TODO(step K3a): cdf_min, the first non-zero CDF entry, shared by the block. An atomicMin
    //   over the non-zero entries works; can you do without any atomic, knowing that a CDF
    //   never decreases? Which barrier does the block need before anyone reads it?
    //
    // TODO(step K3b): lut[v] by the contract: 64-bit arithmetic (work out where 32 bits
    //   overflow for an 8192 x 8192 image), 0 below the first non-zero bin, and the
    //   single-valued image (N == cdf_min), which maps to itself.
    // starter: solution
    __shared__ unsigned long long cdf_min;
    const int v = threadIdx.x;
    const unsigned long long here = cdf[v];
    if (here != 0 && (v == 0 || cdf[v - 1] == 0)) cdf_min = here;
    __syncthreads();  // cdf_min is written before anyone reads it (an image has a pixel: someone writes it)
    // 64-bit: (here - cdf_min) * 255 passes 2^32 at about 16.8 Mpixel.
    const unsigned long long span = pixels - cdf_min;
    if (span == 0) {
        lut[v] = static_cast<unsigned char>(v);  // a single-valued image is its own output
    } else if (here == 0) {
        lut[v] = 0;  // below the first non-zero bin: no pixel looks these up
    } else {
        lut[v] = static_cast<unsigned char>(((here - cdf_min) * (kLevels - 1) + span / 2) / span);
    }
    // starter: end
}

// starter: prompt
// out[i] = lut[in[i]] for every pixel.
// starter: solution
// out[i] = lut[in[i]], grid-stride. Every pixel looks one entry up, in any order: the 256-byte LUT
// is staged in shared memory once per block, so the lookups never go to global memory.
// starter: end
extern "C" __global__ void equalize(const unsigned char* in, unsigned char* out, const unsigned char* lut,
                                    unsigned long long pixels) {
    // starter: prompt
    // TODO(step K4): stage the LUT in shared memory (every pixel looks one entry up, in any
    //   order; the block may have more or fewer threads than entries), then map the pixels in a
    //   grid-stride loop as in step K1b. Which barrier is needed, and where?
    // starter: solution
    __shared__ unsigned char table[kLevels];
    for (int v = threadIdx.x; v < kLevels; v += blockDim.x) table[v] = lut[v];
    __syncthreads();  // the whole table is loaded before any pixel looks it up
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += stride)
        out[i] = table[in[i]];
    // starter: end
}
