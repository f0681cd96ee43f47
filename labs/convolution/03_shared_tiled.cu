// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
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
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

namespace convolution {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

// Dynamic shared memory a kernel may use without opting in (cudaFuncSetAttribute).
[[maybe_unused]] constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

// TODO(step 3a): this file's own __constant__ array of kMaxWeights floats (as step 2a; each
//   file keeps its own, so the variants do not depend on each other), and set_weights_tiled
//   below (as step 2b).

[[maybe_unused]] __global__ void convolve_tiled_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                                       [[maybe_unused]] int size, [[maybe_unused]] Border border) {
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
}

}  // namespace

void set_weights_tiled([[maybe_unused]] const float* weights, [[maybe_unused]] int size,
                       [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("set_weights_tiled (03_shared_tiled.cu)");
}

void convolve_tiled([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                    [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                    [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 3g): launch as in step 1d, with the tile's bytes as the launch's third
    //   argument (dynamic shared memory). Pitfalls: the host computes the bytes from the same
    //   shape the kernel assumes; a tile over kDefaultSharedBytes fails to launch, so refuse it
    //   with a message that says why (std::invalid_argument). Then delete the throw.
    throw labkit::NotImplemented("convolve_tiled (03_shared_tiled.cu)");
}

void convolve_tiled_unrolled([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                             [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                             [[maybe_unused]] GpuContext& ctx) {
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
    throw labkit::NotImplemented("convolve_tiled_unrolled (03_shared_tiled.cu)");
}

}  // namespace convolution
