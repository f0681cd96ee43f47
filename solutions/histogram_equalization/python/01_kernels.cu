// Lab 2, Python track: the kernels PyCUDA (02_pycuda.py) and CuPy (03_cupy.py) compile at run time
// (nvcc and NVRTC). The same four stages as the native 02_shared_privatized.cu, 04_scan.cu
// (Kogge-Stone) and 05_equalize.cu, written as extern "C" kernels so that Python finds them by
// name, on the image as one flat array of width * height bytes (the runner's images are dense).
//
// Changes against the native steps: the histogram walks the pixels with a grid-stride loop, so
// Python picks a capped number of blocks instead of one thread per pixel; the launch
// configuration, the scratch arrays and the order of the stages move to Python.
// Cost: 1 B/px read by the histogram, 1 B/px read + 1 B/px written by the map: the 3 B/px floor.
// The scan and the LUT touch 256 entries each: their time is the launch.
// Limits: a bin counts up to 2^32 - 1 pixels; the pixel index and the LUT arithmetic are 64-bit.
// scan_kogge_stone and normalize_lut need exactly kLevels threads in one block.
// Reference: PMPP 4th ed., section 9.4 (privatization) and chapter 11 (scan); Kogge & Stone
// (1973); Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3.

constexpr int kLevels = 256;  // gray levels: the histogram's bins, the LUT's entries

// hist[v] += the number of pixels of value v (hist is zeroed by the host first). Each block counts
// into its own shared histogram, with cheap shared atomics, then adds each non-zero bin to the
// global one: at most kLevels global atomics per block instead of one per pixel.
extern "C" __global__ void histogram_privatized(const unsigned char* in, unsigned* hist, unsigned long long pixels) {
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
}

// cdf[v] = hist[0] + ... + hist[v]: one block of kLevels threads, one bin each, Kogge-Stone in
// shared memory (log2(kLevels) = 8 steps of "add the element `stride` to my left").
extern "C" __global__ void scan_kogge_stone(const unsigned* hist, unsigned* cdf) {
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
}

// lut[v] from the CDF, one thread per entry. cdf_min needs no atomic: the CDF never decreases, so
// the first non-zero entry is the only one whose left neighbour is zero (or that has none).
extern "C" __global__ void normalize_lut(const unsigned* cdf, unsigned char* lut, unsigned long long pixels) {
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
}

// out[i] = lut[in[i]], grid-stride. Every pixel looks one entry up, in any order: the 256-byte LUT
// is staged in shared memory once per block, so the lookups never go to global memory.
extern "C" __global__ void equalize(const unsigned char* in, unsigned char* out, const unsigned char* lut,
                                    unsigned long long pixels) {
    __shared__ unsigned char table[kLevels];
    for (int v = threadIdx.x; v < kLevels; v += blockDim.x) table[v] = lut[v];
    __syncthreads();  // the whole table is loaded before any pixel looks it up
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += stride)
        out[i] = table[in[i]];
}
