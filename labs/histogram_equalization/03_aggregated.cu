// 03 — Aggregated, coarsened histogram
// Changes vs 02: a quarter of the blocks, each thread counting several pixels with interleaved
//   partitioning (thread t takes pixels t, t + T, t + 2T, ... for T threads in all, so a warp's
//   loads stay coalesced); and a thread counts a run of equal values in a register and makes one
//   shared atomic per run instead of one per pixel. On a skewed image most runs are long.
// Cost: 1 B/px read; one shared atomic per run; 1/4 as many blocks to merge.
// Limits: on uniform noise runs are 1 long and aggregation only adds a compare; the fewer
//   blocks must still fill the GPU (kCoarsening is small for that reason).
// Ref: PMPP 4th ed., sections 9.5 (coarsening) and 9.6 (aggregation).
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {
namespace {

// Pixels per thread on average: the grid is 1/kCoarsening of one-pixel-per-thread.
[[maybe_unused]] constexpr int kCoarsening = 4;

[[maybe_unused]] __global__ void histogram_aggregated_kernel([[maybe_unused]] Input in,
                                                             [[maybe_unused]] std::uint32_t* hist) {
    // TODO(step 3a): the shared histogram, as in step 2a.
    //
    // TODO(step 3b): a grid-stride loop over the pixels (interleaved partitioning). Keep the
    //   value of the current run and its length in registers; when the value changes, add the
    //   finished run to its bin with one atomic. Pitfalls: the first pixel starts a run (there
    //   is no "previous value" yet); the last run must be added after the loop. A division and
    //   a remainder per pixel (row and column from the index) can cost more than the pixel's
    //   load: labkit::PixelStride (labkit/launch.hpp) walks (x, y) without them.
    //
    // TODO(step 3c): merge, as in step 2c.
}

}  // namespace

void histogram_aggregated([[maybe_unused]] Input in, [[maybe_unused]] std::uint32_t* hist,
                          [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 3d): launch about 1/kCoarsening of the blocks step 1b would, on ctx.stream,
    //   checked at once. Then delete the throw.
    throw labkit::NotImplemented("histogram_aggregated (03_aggregated.cu)");
}

}  // namespace histogram_equalization
