// starter: generates labs/histogram_equalization/02_shared_privatized.cu
// starter: step a private histogram per block in shared memory, merged
// 02 — Privatized histogram in shared memory
// Changes vs 01: each block counts into its own 256-bin histogram in shared memory, then adds
//   its non-zero bins to the global histogram: global atomics fall from one per pixel to at most
//   256 per block, and the shared-memory atomics that remain are an order of magnitude cheaper.
// Cost: 1 B/px read, one shared atomic per pixel, <= 256 global atomics per block; two barriers.
// Limits: a white image still serializes every thread of a block on one shared counter.
// Ref: PMPP 4th ed., section 9.4 (privatization).
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {
namespace {

// starter: prompt
//> [[maybe_unused]] __global__ void histogram_privatized_kernel([[maybe_unused]] Input in,
                                                             //> [[maybe_unused]] std::uint32_t* hist) {
    // TODO(step 2a): a shared histogram of kLevels counters, zeroed by the block. Pitfall: a
    //   block of 512 threads has more threads than bins, and one of 256 exactly as many: write
    //   the loop so that both work.
    //
    // TODO(step 2b): count this thread's pixel (as in step 1a) into the shared histogram.
    //
    // TODO(step 2c): merge: add each non-zero bin to the global histogram. Two barriers belong
    //   in this kernel; for each, write a comment saying which race it prevents.
// starter: solution
__global__ void histogram_privatized_kernel(Input in, std::uint32_t* hist) {
    __shared__ std::uint32_t local[kLevels];
    for (int b = threadIdx.x; b < kLevels; b += blockDim.x) local[b] = 0;
    // Every bin is zero before anyone counts into it.
    __syncthreads();
    // 32-bit index arithmetic, as in 01 (at most 2^28 pixels).
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < static_cast<unsigned>(in.width) * static_cast<unsigned>(in.height)) {
        const int y = static_cast<int>(i / static_cast<unsigned>(in.width)), x = static_cast<int>(i - y * in.width);
        atomicAdd(&local[in(x, y)], 1u);
    }
    // Every thread of the block has counted before its bins are merged.
    __syncthreads();
    for (int b = threadIdx.x; b < kLevels; b += blockDim.x)
        if (const std::uint32_t count = local[b]; count != 0) atomicAdd(&hist[b], count);
// starter: end
}

}  // namespace

// starter: prompt
//> void histogram_privatized([[maybe_unused]] Input in, [[maybe_unused]] std::uint32_t* hist,
                          //> [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2d): launch as in step 1b. Then delete the throw.
    //> throw labkit::NotImplemented("histogram_privatized (02_shared_privatized.cu)");
// starter: solution
void histogram_privatized(Input in, std::uint32_t* hist, const Tuning& tuning, GpuContext& ctx) {
    const long long pixels = static_cast<long long>(in.width) * in.height;
    if (pixels == 0) return;
    const long long blocks = labkit::ceil_div(pixels, tuning.block_size);
    histogram_privatized_kernel<<<static_cast<unsigned>(blocks), tuning.block_size, 0, ctx.stream>>>(in, hist);
    CUDA_CHECK_LAUNCH();
// starter: end
}

}  // namespace histogram_equalization
