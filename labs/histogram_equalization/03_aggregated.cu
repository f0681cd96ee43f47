// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 03 — Aggregated, coarsened histogram
// Changes vs 02: one wave of blocks (as many as the GPU holds at once, from the occupancy API),
//   each thread counting many pixels with interleaved partitioning (thread t takes pixels t,
//   t + T, t + 2T, ... for T threads in all, so a warp's loads stay coalesced); and a thread
//   counts a run of equal values in a register and makes one
//   shared atomic per run instead of one per pixel. On a skewed image most runs are long.
// Cost: 1 B/px read; one shared atomic per run; one merge of 256 bins per resident block (a
//   thousand or so on a large GPU) instead of one per 256 or 512 pixels.
// Limits: on uniform noise runs are 1 long and aggregation only adds a compare. The wave is the
//   device's, asked once per device and block size: a grid sized for one GPU would leave SMs of
//   a larger one idle, or launch many waves of merges on a smaller one.
// Needs: nothing past sm_75; the occupancy query is the CUDA runtime's.
// Challenge (3e), warp aggregation: the same walk, but the 32 lanes of a warp, which read 32
//   neighbouring pixels at once, find who holds the same value (__match_any_sync) and one lane
//   of each group adds the group's size: one shared atomic per distinct value per warp and
//   step, whatever order the values come in. It costs a MATCH instruction per pixel and
//   warp-uniform control: every lane named in the mask must reach the match, also the lanes past
//   the last pixel. Needs sm_70 (MATCH; the kit's floor is sm_75) and blocks of whole warps.
// Ref: PMPP 4th ed., sections 9.5 (coarsening) and 9.6 (aggregation); NVIDIA, "CUDA C++ Best
//   Practices Guide" (occupancy calculator API, grid-stride loops); NVIDIA, "CUDA C++ Programming
//   Guide", warp match functions; Adinets, "CUDA Pro Tip: Optimized Filtering with Warp-Aggregated
//   Atomics" (NVIDIA blog, 2014).
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {
namespace {

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

[[maybe_unused]] __global__ void histogram_warp_aggregated_kernel([[maybe_unused]] Input in,
                                                                  [[maybe_unused]] std::uint32_t* hist) {
    // TODO(step 3e, challenge): step 3's kernel with the run counter replaced by the warp: the
    //   shared histogram and the grid-stride walk as before; at each step every lane holds one
    //   pixel, __match_any_sync gives each lane the mask of lanes holding the same value, and one
    //   lane per mask (pick it so that exactly one does) adds the mask's population. Pitfalls:
    //   __match_any_sync with the full mask is undefined unless all 32 lanes reach it, so the loop
    //   must go on while ANY lane of the warp has a pixel (__any_sync), and a lane past the end
    //   takes part with a value no pixel has and adds nothing; then merge as in step 3c.
}

}  // namespace

void histogram_aggregated([[maybe_unused]] Input in, [[maybe_unused]] std::uint32_t* hist,
                          [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 3d): launch one wave of blocks, on ctx.stream, checked at once: as many as the
    //   GPU holds at the same time, which the occupancy API gives per SM for this kernel at this
    //   block size (cudaOccupancyMaxActiveBlocksPerMultiprocessor; the SM count is a device
    //   attribute). Why one wave: every block zeroes and merges 256 bins, so blocks beyond what
    //   the SMs hold at once only add merges, and fewer leave SMs idle. Pitfalls: a small image
    //   needs fewer blocks than a wave (no block without a pixel); the queries take microseconds
    //   of host time while the grader's clock runs, so ask once per device and block size and
    //   keep the answer. Then delete the throw.
    throw labkit::NotImplemented("histogram_aggregated (03_aggregated.cu)");
}

void histogram_warp_aggregated([[maybe_unused]] Input in, [[maybe_unused]] std::uint32_t* hist,
                               [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 3e, challenge): launch histogram_warp_aggregated_kernel as in step 3d, one wave
    //   from the occupancy of this kernel (not step 3's: the two kernels' registers differ). The
    //   block sizes the kit uses (256, 512) are whole warps, which the match needs. Then delete
    //   the throw.
    throw labkit::NotImplemented("histogram_warp_aggregated (03_aggregated.cu)");
}

}  // namespace histogram_equalization
