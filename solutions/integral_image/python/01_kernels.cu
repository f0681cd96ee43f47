// Lab 1, Python track: the kernels PyCUDA (02_pycuda.py) and CuPy (03_cupy.py) compile at run time
// (nvcc and NVRTC). The same two steps as the native 02_kogge_stone.cu and 02_transpose_tiled.cu,
// written as extern "C" kernels so that Python finds them by name.
//
// Changes against the native step: nothing in the algorithm; the launch configuration, the
// scratch images and the order of the passes move to Python.
// Cost: the image is read and written four times (two scans, two transposes): 1 + 4 B/px for the
// first scan, 8 B/px for each later pass (29 B/px in all), against the 5 B/px floor.
// Limits: one block per row, so a row of any width fits; heights up to 2^31 - 1 rows.
// Reference: Kogge & Stone (1973); Harris, Sengupta & Owens, "Parallel Prefix Sum (Scan) with
// CUDA", GPU Gems 3, ch. 39; NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++".

constexpr int kTile = 32;      // the transpose's tile side: one warp across
constexpr int kTileRows = 8;   // rows of threads per tile: each thread moves kTile / kTileRows elements

// Inclusive scan of one row per block, blockDim.x elements at a time: each section is scanned in
// shared memory (Kogge-Stone: log2(blockDim.x) steps of "add the element `stride` to my left"), and
// the running total of the sections before it is added as it is written.
template <typename In>
__device__ void scan_row(const In* in, unsigned* out, int width) {
    extern __shared__ unsigned section[];
    const In* src = in + static_cast<size_t>(blockIdx.x) * width;
    unsigned* dst = out + static_cast<size_t>(blockIdx.x) * width;
    const int t = threadIdx.x;
    unsigned carry = 0;
    for (int base = 0; base < width; base += blockDim.x) {
        const int x = base + t;
        section[t] = x < width ? static_cast<unsigned>(src[x]) : 0u;
        for (int stride = 1; stride < blockDim.x; stride *= 2) {
            __syncthreads();  // every write of the previous step is visible
            const unsigned add = t >= stride ? section[t - stride] : 0u;
            __syncthreads();  // every read of this step is done before anyone writes
            section[t] += add;
        }
        __syncthreads();
        if (x < width) dst[x] = carry + section[t];
        carry += section[blockDim.x - 1];
        __syncthreads();  // the last element is read before the next section overwrites it
    }
}

extern "C" __global__ void scan_rows_u8(const unsigned char* in, unsigned* out, int width) { scan_row(in, out, width); }
extern "C" __global__ void scan_rows_u32(const unsigned* in, unsigned* out, int width) { scan_row(in, out, width); }

// out (width rows of height) = the transpose of in (height rows of width), through a padded tile
// so that both the reads and the writes are coalesced and the tile's columns hit 32 banks.
extern "C" __global__ void transpose_u32(const unsigned* in, unsigned* out, int width, int height) {
    __shared__ unsigned tile[kTile][kTile + 1];
    const int x = blockIdx.x * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += kTileRows) {
        const int y = blockIdx.y * kTile + j;
        if (x < width && y < height) tile[j][threadIdx.x] = in[static_cast<size_t>(y) * width + x];
    }
    __syncthreads();  // the tile is whole before any thread reads another thread's element
    const int out_x = blockIdx.y * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += kTileRows) {
        const int out_y = blockIdx.x * kTile + j;
        if (out_x < height && out_y < width) out[static_cast<size_t>(out_y) * height + out_x] = tile[threadIdx.x][j];
    }
}
