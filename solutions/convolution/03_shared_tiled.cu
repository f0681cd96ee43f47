// starter: generates labs/convolution/03_shared_tiled.cu
// starter: step the input tile and its halo staged in shared memory
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
// Experiment 3h (convolve_tiled_unrolled, variants gpu-03-unrolled-*): the same kernel compiled
//   once per odd k, 1 to kMaxFilterSize, k a template argument. Every loop bound is then a
//   constant: nvcc unrolls the k x k taps whole, and the weights' addresses are constants, loaded
//   two at a time into uniform registers (ULDC.64) and used as FFMA operands, where the run-time
//   version computes each address and loads one weight (ULDC) beside every FFMA. Cost: the same
//   bytes and barriers; 13 kernels in the binary (625 unrolled taps at k = 25); a k the lab does
//   not allow is refused.
// Ref: PMPP 4th ed., chapter 7 (convolution), section 7.4 (tiled convolution with halo cells);
//   CUDA C++ Programming Guide, "#pragma unroll" (loops with a constant trip count).
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "convolution.hpp"
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/launch.hpp"
// starter: prompt
//>
// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.
// starter: end

namespace convolution {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

// Dynamic shared memory a kernel may use without opting in (cudaFuncSetAttribute).
// starter: instead [[maybe_unused]] constexpr std::size_t kDefaultSharedBytes = 48 * 1024;
constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

// starter: prompt
// TODO(step 3a): this file's own __constant__ array of kMaxWeights floats (as step 2a; each
//   file keeps its own, so the variants do not depend on each other), and set_weights_tiled
//   below (as step 2b).
// starter: solution
__constant__ float c_tiled_weights[kMaxWeights];  // K(dx, dy) = c_tiled_weights[(dy + r) * size + (dx + r)]
// starter: end

// starter: prompt
//> [[maybe_unused]] __global__ void convolve_tiled_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                                       //> [[maybe_unused]] int size, [[maybe_unused]] Border border) {
    // TODO(step 3b): the tile. Its size depends on the block and on r, known only at launch, so
    //   it is dynamic shared memory: an `extern __shared__ float` array whose bytes the launch
    //   gives (step 3g). Work out the tile's width and height in floats from blockDim and r:
    //   which input do the block's block_x x block_y outputs need? Pitfall: compute them
    //   here from blockDim, never from constants: the tables sweep several block shapes.
    //
    // TODO(step 3c): load the tile, cooperatively: the tile has more floats than the block has
    //   threads, so every thread loads several, in a strided loop over the whole tile. Apply
    //   border_index while loading and store 0 for the zero border: then the sums of step 3e
    //   need no border logic at all. Pitfalls: threads whose own output is outside the image
    //   load too; let consecutive threads load consecutive floats of a row (coalescing); which
    //   image pixel does the tile's first float hold, with a halo on every side?
    //
    // TODO(step 3d): one barrier between the load and the sums, on its own line, with a
    //   comment naming the race it prevents. Pitfall: every thread of the block must reach it:
    //   no early return and no edge check around it.
    //
    // TODO(step 3e): each thread whose pixel is in the image sums its k x k neighbourhood from
    //   the tile, with the weights from your __constant__ array, and writes clamp_pixel(sum).
    //   Pitfall: where in the tile does this thread's neighbourhood start?
    //
    // TODO(step 3f): tall images, as step 1c, with a catch: the loop now holds a barrier, so
    //   every thread of the block must make the same number of passes, and nobody may overwrite
    //   the tile for the next pass while others still read it (say in a comment which barrier
    //   guarantees that).
    //
    // Think about it (handout, docs/labs/convolution.md): for a 16 x 16 block, how many floats
    //   does a block load per output pixel at k = 3, 5 and 25, and at 32 x 32?
// starter: solution
// Block (bx, by) computes outputs x0..x0 + blockDim.x - 1, y0..y0 + blockDim.y - 1, from the
// shared tile tile(tx, ty) = in~(x0 - r + tx, y0 - r + ty), row-major, tile_w floats a row.
// kFixedSize: 0 for steps 3b-3f, k then in run_time_size; else k itself (experiment 3h). nvcc
// unrolls a loop of constant trip count whole on its own; a bare `#pragma unroll` would add
// nothing there and would stop the partial unrolling of the run-time loops.
template <int kFixedSize>
__global__ void convolve_tiled_kernel(Input in, Output out, int run_time_size, Border border) {
    extern __shared__ float tile[];  // sized at launch: the tile's size depends on the block and on r
    const int size = kFixedSize > 0 ? kFixedSize : run_time_size;
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
// starter: end
}
// starter: solution

// The launch of both variants: one block per tile of outputs, the tile and its halo in dynamic
// shared memory. kFixedSize as the kernel's.
template <int kFixedSize>
void launch_tiled(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;  // a zero-block grid is a launch error
    const int r = size / 2;
    const std::size_t tile_bytes =
        sizeof(float) * static_cast<std::size_t>(tuning.block_x + 2 * r) * static_cast<std::size_t>(tuning.block_y + 2 * r);
    if (tile_bytes > kDefaultSharedBytes)
        throw std::invalid_argument(std::string(kFixedSize == 0 ? "convolve_tiled" : "convolve_tiled_unrolled") +
                                    ": the tile of this block and filter exceeds 48 KB of shared memory");
    const dim3 block(tuning.block_x, tuning.block_y);
    const dim3 grid(ceil_div(in.width, tuning.block_x), std::min(ceil_div(in.height, tuning.block_y), kMaxGridY));
    convolve_tiled_kernel<kFixedSize><<<grid, block, tile_bytes, ctx.stream>>>(in, out, size, border);
    CUDA_CHECK_LAUNCH();
}

// Experiment 3h: the kernel compiled for k = kSize, or the chain's next odd k; one instantiation
// per k the lab allows, the chain ends past kMaxFilterSize.
template <int kSize = 1>
void launch_tiled_unrolled(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx) {
    if constexpr (kSize > kMaxFilterSize) {
        throw std::invalid_argument("convolve_tiled_unrolled: size must be odd, 1 to kMaxFilterSize");
    } else if (size == kSize) {
        launch_tiled<kSize>(in, out, size, border, tuning, ctx);
    } else {
        launch_tiled_unrolled<kSize + 2>(in, out, size, border, tuning, ctx);
    }
}
// starter: end

}  // namespace

// starter: prompt
//> void set_weights_tiled([[maybe_unused]] const float* weights, [[maybe_unused]] int size,
                       //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("set_weights_tiled (03_shared_tiled.cu)");
// starter: solution
void set_weights_tiled(const float* weights, int size, GpuContext& ctx) {
    // A larger filter would write past the end of c_tiled_weights.
    if (size < 1 || size > kMaxFilterSize || size % 2 == 0)
        throw std::invalid_argument("set_weights_tiled: size must be odd, 1 to kMaxFilterSize");
    // Stream-ordered: the copy lands before any kernel launched after it on ctx.stream reads it.
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_tiled_weights, weights, sizeof(float) * size * size, 0,
                                       cudaMemcpyHostToDevice, ctx.stream));
// starter: end
}

// starter: prompt
//> void convolve_tiled([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                    //> [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                    //> [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 3g): launch as in step 1d, with the tile's bytes as the launch's third
    //   argument (dynamic shared memory). Pitfalls: the host computes the bytes from the same
    //   shape the kernel assumes; a tile over kDefaultSharedBytes fails to launch, so refuse it
    //   with a message that says why (std::invalid_argument). Then delete the throw.
    //> throw labkit::NotImplemented("convolve_tiled (03_shared_tiled.cu)");
// starter: solution
void convolve_tiled(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx) {
    launch_tiled<0>(in, out, size, border, tuning, ctx);
// starter: end
}

// starter: prompt
//> void convolve_tiled_unrolled([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                             //> [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                             //> [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 3h, experiment): the same kernel with k known when it is compiled. Do it once
    //   steps 3a to 3g pass.
    //   1. Make your kernel a template on an int, the filter's k, with 0 meaning "k comes in the
    //      size argument, as before"; inside, the size the loops use is the template's when it
    //      is not 0. Your convolve_tiled then launches the 0 version: it must not change at all.
    //   2. Here, launch the version whose template argument equals `size`. A template argument
    //      must be a constant, and `size` is not: write one launch per odd k from 1 to
    //      kMaxFilterSize, picked at run time, without 13 copies of the launch (a function
    //      template that tests one k and otherwise calls itself for the next, with
    //      `if constexpr` to end the chain). A size that is not an odd 1 to kMaxFilterSize is
    //      refused with std::invalid_argument, as in step 3g.
    //   Pitfalls: a bare `#pragma unroll` on the run-time loops stops nvcc's partial unrolling
    //   there and changes the kernel you are comparing against; the 13 kernels make this
    //   file's compile slower (say by how much in your report).
    //   Then look at both kernels' SASS (handout, "k at compile time") before you time them.
    //> throw labkit::NotImplemented("convolve_tiled_unrolled (03_shared_tiled.cu)");
// starter: solution
void convolve_tiled_unrolled(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx) {
    launch_tiled_unrolled(in, out, size, border, tuning, ctx);
// starter: end
}

}  // namespace convolution
