// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// Lab 2, Python track: the kernels PyCUDA (02_pycuda.py) and CuPy (03_cupy.py) compile at run time
// (nvcc and NVRTC). The same four stages as the native 02_shared_privatized.cu, 04_scan.cu
// (Kogge-Stone) and 05_equalize.cu, written as extern "C" kernels so that Python finds them by
// name (C++ would mangle the names), on the image as one flat array of width * height bytes
// (the runner's images are dense: pixel (x, y) is in[y * width + x]).
//
// Changes against the native steps: the histogram and the map walk the pixels with a grid-stride
// loop, so Python can launch a capped number of blocks; the launch configuration, the scratch
// arrays and the order of the stages move to Python.
// Cost: 1 B/px read by the histogram, 1 B/px read + 1 B/px written by the map: the 3 B/px floor.
// The scan and the LUT touch 256 entries each: their time is the launch.
// Limits: a bin counts up to 2^32 - 1 pixels; the pixel index and the LUT arithmetic are 64-bit.
// scan_kogge_stone and normalize_lut need exactly kLevels threads in one block.
// Reference: PMPP 4th ed., section 9.4 (privatization) and chapter 11 (scan); Kogge & Stone
// (1973); Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3.
//
// Write these four kernels first (steps K1 to K4): the host files only launch them, and a kernel
// left empty runs, does nothing, and shows up as a wrong answer, not as a TODO.
// Keep this file free of #include: NVRTC (CuPy) compiles it without the C++ standard headers.
// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

[[maybe_unused]] constexpr int kLevels = 256;  // gray levels: the histogram's bins, the LUT's entries

// hist[v] += the number of pixels of value v. The host zeroes hist before the launch.
extern "C" __global__ void histogram_privatized(const unsigned char* in, unsigned* hist, unsigned long long pixels) {
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
}

// cdf[v] = hist[0] + ... + hist[v] (inclusive). One block of kLevels threads, one bin each.
extern "C" __global__ void scan_kogge_stone(const unsigned* hist, unsigned* cdf) {
    // TODO(step K2): load the bins into shared memory, then log2(kLevels) Kogge-Stone steps with
    //   a doubling stride, each thread adding the element `stride` places to its left. Each step
    //   needs two barriers (or two buffers and one); say in a comment which race each prevents.
    //   Pitfall: a barrier inside an `if` that not every thread takes is undefined behaviour.
}

// lut[v] from the CDF by the contract (histogram_equalization.hpp), one thread per entry.
// pixels = N = width * height. One block of kLevels threads.
extern "C" __global__ void normalize_lut(const unsigned* cdf, unsigned char* lut, unsigned long long pixels) {
    // TODO(step K3a): cdf_min, the first non-zero CDF entry, shared by the block. An atomicMin
    //   over the non-zero entries works; can you do without any atomic, knowing that a CDF
    //   never decreases? Which barrier does the block need before anyone reads it?
    //
    // TODO(step K3b): lut[v] by the contract: 64-bit arithmetic (work out where 32 bits
    //   overflow for an 8192 x 8192 image), 0 below the first non-zero bin, and the
    //   single-valued image (N == cdf_min), which maps to itself.
}

// out[i] = lut[in[i]] for every pixel.
extern "C" __global__ void equalize(const unsigned char* in, unsigned char* out, const unsigned char* lut,
                                    unsigned long long pixels) {
    // TODO(step K4): stage the LUT in shared memory (every pixel looks one entry up, in any
    //   order; the block may have more or fewer threads than entries), then map the pixels in a
    //   grid-stride loop as in step K1b. Which barrier is needed, and where?
}
