// 03 — Shared-memory tiles with a halo
// Changes vs 02: a block's outputs are a block_x x block_y tile; the block first loads the
//   input that tile needs, itself plus a halo of r pixels on every side, into shared memory,
//   once, with the border applied while loading; then every thread sums its k x k
//   neighbourhood from shared memory. Weights in this file's own __constant__ array.
// Cost: 2 k^2 flops/px; global: each float of the input tile and its halo read once per block,
//   4 B/px written; shared: one write per tile float, k^2 reads per pixel; two barriers per tile
//   (after the load, and before a tall image's next pass reuses the tile).
// Limits: the tile, outputs and halo, must fit the 48 KB of dynamic shared memory a launch gets
//   without opting in; border blocks pay border_index per loaded float; a halo float is loaded
//   by every block whose tile covers it.
// Ref: PMPP 4th ed., chapter 7 (convolution), section 7.4 (tiled convolution with halo cells).
#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "convolution.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/launch.hpp"

namespace convolution {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

// Dynamic shared memory a kernel may use without opting in (cudaFuncSetAttribute).
constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

__constant__ float c_tiled_weights[kMaxWeights];  // K(dx, dy) = c_tiled_weights[(dy + r) * size + (dx + r)]

// Block (bx, by) computes outputs x0..x0 + blockDim.x - 1, y0..y0 + blockDim.y - 1, from the
// shared tile tile(tx, ty) = in~(x0 - r + tx, y0 - r + ty), row-major, tile_w floats a row.
__global__ void convolve_tiled_kernel(Input in, Output out, int size, Border border) {
    extern __shared__ float tile[];  // sized at launch: the tile's size depends on the block and on r
    const int r = size / 2;
    const int tile_w = blockDim.x + 2 * r, tile_h = blockDim.y + 2 * r;  // the block's outputs plus r on every side
    const int threads = blockDim.x * blockDim.y;
    const int rank = threadIdx.y * blockDim.x + threadIdx.x;  // this thread's place in the load order
    const int x0 = blockIdx.x * blockDim.x;
    const int x = x0 + threadIdx.x;
    // Uniform across the block (y0 depends on blockIdx only), so every thread meets both barriers.
    for (int y0 = blockIdx.y * blockDim.y; y0 < in.height; y0 += gridDim.y * blockDim.y) {
        // Load: the block walks the whole tile in row-major order, `threads` floats per round;
        // consecutive lanes take consecutive floats of a tile row (coalesced away from the edges).
        for (int i = rank; i < tile_w * tile_h; i += threads) {
            const int ty = i / tile_w, tx = i - ty * tile_w;
            const int sx = border_index(x0 - r + tx, in.width, border);
            const int sy = border_index(y0 - r + ty, in.height, border);
            tile[i] = sx < 0 || sy < 0 ? 0.0f : in(sx, sy);  // -1: the zero border
        }
        // Read-after-write: a thread's neighbourhood holds floats that other threads (other warps)
        // load; without this barrier it could read them before they are written.
        __syncthreads();
        const int y = y0 + threadIdx.y;
        if (x < in.width && y < in.height) {
            float sum = 0.0f;
            for (int i = 0; i < size; ++i) {
                const float* src = tile + (threadIdx.y + i) * tile_w + threadIdx.x;  // src[j] = in~(x - r + j, y - r + i)
                const float* w = c_tiled_weights + i * size;                         // w[j] = K(j - r, i - r)
                for (int j = 0; j < size; ++j) sum += w[j] * src[j];
            }
            out(x, y) = clamp_pixel(sum);
        }
        // Write-after-read: every thread has finished reading this tile before the next pass of
        // the loop (a tall image only) overwrites it.
        __syncthreads();
    }
}

}  // namespace

void set_weights_tiled(const float* weights, int size, GpuContext& ctx) {
    // A larger filter would write past the end of c_tiled_weights.
    if (size < 1 || size > kMaxFilterSize || size % 2 == 0)
        throw std::invalid_argument("set_weights_tiled: size must be odd, 1 to kMaxFilterSize");
    // Stream-ordered: the copy lands before any kernel launched after it on ctx.stream reads it.
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_tiled_weights, weights, sizeof(float) * size * size, 0,
                                       cudaMemcpyHostToDevice, ctx.stream));
}

void convolve_tiled(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;  // a zero-block grid is a launch error
    const int r = size / 2;
    const std::size_t tile_bytes =
        sizeof(float) * static_cast<std::size_t>(tuning.block_x + 2 * r) * static_cast<std::size_t>(tuning.block_y + 2 * r);
    if (tile_bytes > kDefaultSharedBytes)
        throw std::invalid_argument("convolve_tiled: the tile of this block and filter exceeds 48 KB of shared memory");
    const dim3 block(tuning.block_x, tuning.block_y);
    const dim3 grid(ceil_div(in.width, tuning.block_x), std::min(ceil_div(in.height, tuning.block_y), kMaxGridY));
    convolve_tiled_kernel<<<grid, block, tile_bytes, ctx.stream>>>(in, out, size, border);
    CUDA_CHECK_LAUNCH();
}

}  // namespace convolution
