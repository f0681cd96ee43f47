// starter: step runs of equal values counted before each atomic; coarsening
// 03 — Aggregated, coarsened histogram
// Changes vs 02: a quarter of the blocks, each thread counting several pixels with interleaved
//   partitioning (thread t takes pixels t, t + T, t + 2T, ... for T threads in all, so a warp's
//   loads stay coalesced); and a thread counts a run of equal values in a register and makes one
// starter: prompt
//   shared atomic per run instead of one per pixel. On a skewed image most runs are long.
// starter: solution
//   shared atomic per run instead of one per pixel. On a skewed image most runs are long. The
//   walk keeps (x, y) as it strides (labkit::PixelStride): no division per pixel.
// starter: end
// Cost: 1 B/px read; one shared atomic per run; 1/4 as many blocks to merge.
// Limits: on uniform noise runs are 1 long and aggregation only adds a compare; the fewer
//   blocks must still fill the GPU (kCoarsening is small for that reason).
// Ref: PMPP 4th ed., sections 9.5 (coarsening) and 9.6 (aggregation).
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {
namespace {

// starter: prompt
// Pixels per thread on average: the grid is 1/kCoarsening of one-pixel-per-thread.
//> [[maybe_unused]] constexpr int kCoarsening = 4;
// starter: solution
// Pixels per thread on average: the grid is 1/kCoarsening of one-pixel-per-thread, enough
// blocks left to fill every SM at 1024^2 and above.
constexpr int kCoarsening = 4;
constexpr int kNoValue = -1;  // no run started yet
// starter: end

// starter: prompt
//> [[maybe_unused]] __global__ void histogram_aggregated_kernel([[maybe_unused]] Input in,
                                                             //> [[maybe_unused]] std::uint32_t* hist) {
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
// starter: solution
__global__ void histogram_aggregated_kernel(Input in, std::uint32_t* hist) {
    __shared__ std::uint32_t local[kLevels];
    for (int b = threadIdx.x; b < kLevels; b += blockDim.x) local[b] = 0;
    // Every bin is zero before anyone counts into it.
    __syncthreads();
    int run_value = kNoValue;
    std::uint32_t run_length = 0;
    const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (labkit::PixelStride p(first, static_cast<long long>(gridDim.x) * blockDim.x, in.width); p.y < in.height; p.next()) {
        const int value = in(p.x, p.y);
        if (value == run_value) {
            ++run_length;
            continue;
        }
        if (run_length > 0) atomicAdd(&local[run_value], run_length);
        run_value = value;
        run_length = 1;
    }
    if (run_length > 0) atomicAdd(&local[run_value], run_length);
    // Every thread of the block has counted before its bins are merged.
    __syncthreads();
    for (int b = threadIdx.x; b < kLevels; b += blockDim.x)
        if (const std::uint32_t count = local[b]; count != 0) atomicAdd(&hist[b], count);
// starter: end
}

}  // namespace

// starter: prompt
//> void histogram_aggregated([[maybe_unused]] Input in, [[maybe_unused]] std::uint32_t* hist,
                          //> [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 3d): launch about 1/kCoarsening of the blocks step 1b would, on ctx.stream,
    //   checked at once. Then delete the throw.
    //> throw labkit::NotImplemented("histogram_aggregated (03_aggregated.cu)");
// starter: solution
void histogram_aggregated(Input in, std::uint32_t* hist, const Tuning& tuning, GpuContext& ctx) {
    const long long pixels = static_cast<long long>(in.width) * in.height;
    if (pixels == 0) return;
    const long long per_block = static_cast<long long>(tuning.block_size) * kCoarsening;
    const long long blocks = labkit::ceil_div(pixels, per_block);
    histogram_aggregated_kernel<<<static_cast<unsigned>(blocks), tuning.block_size, 0, ctx.stream>>>(in, hist);
    CUDA_CHECK_LAUNCH();
// starter: end
}

}  // namespace histogram_equalization
