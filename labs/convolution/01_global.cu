// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 01 — Convolution from global memory
// Changes vs the CPU: one thread per output pixel, in 2D blocks of block_x x block_y threads;
//   each thread reads its k x k neighbourhood and the k x k weights straight from global memory
//   (through the L1 and L2 caches) and writes its clamped sum.
// Cost: 2 k^2 flops/px; k^2 image reads + k^2 weight reads per pixel issued to global memory,
//   4 B/px written. Neighbouring threads read overlapping neighbourhoods, so most image reads
//   hit in cache and DRAM sees little more than 4 B/px in.
// Limits: the load path, not the arithmetic, bounds it: two global loads per multiply-add.
// Ref: PMPP 4th ed., chapter 7 (convolution), section 7.2.
#include <algorithm>

#include "convolution.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

namespace convolution {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

[[maybe_unused]] __global__ void convolve_global_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                                        [[maybe_unused]] const float* weights,
                                                        [[maybe_unused]] int size, [[maybe_unused]] Border border) {
    // TODO(step 1a): this thread's output pixel (x, y), from its block's and its own 2D
    //   indices. Pitfall: the grid is rounded up to whole blocks, so the blocks at the right and
    //   bottom edges have threads outside the image: they write nothing.
    //
    // TODO(step 1b): its k x k sum, as in your cpu_openmp (step C1), with the weights read from
    //   the device array `weights`, and out(x, y) = clamp_pixel(sum). The same pitfalls: -1 from
    //   border_index, row-major weights, no flip, pitched views.
    //
    // TODO(step 1c): tall images. The launch (step 1d) caps the grid's height at kMaxGridY
    //   blocks, so one pass of the grid may not reach the last rows: let each thread go on to
    //   the rows one whole grid height further down until it leaves the image. (Up to 8192
    //   rows, this loop runs once.)
}

}  // namespace

void convolve_global([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] const float* device_weights,
                     [[maybe_unused]] int size, [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                     [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 1d): launch on ctx.stream, with blocks of tuning.block_x x tuning.block_y
    //   threads and enough blocks to cover the image (ceil_div), the grid's height capped at
    //   kMaxGridY; check the launch at once (CUDA_CHECK_LAUNCH). Pitfall: an empty image
    //   (width or height 0) must launch nothing: a grid of zero blocks is a launch error.
    //   Then delete the throw.
    throw labkit::NotImplemented("convolve_global (01_global.cu)");
}

}  // namespace convolution
