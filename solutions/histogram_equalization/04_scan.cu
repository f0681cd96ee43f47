// starter: generates labs/histogram_equalization/04_scan.cu
// starter: step three scans of the 256 bins: Kogge–Stone, double-buffered, Brent–Kung
// 04 — Three scans of the 256 bins
// Changes vs Lab 1's section scans: the whole array is one block's section (256 elements), so
//   there is no hierarchy: one kernel, one block, and the three classic in-block scans side by
//   side.
// starter: prompt
//   Kogge–Stone: log2(256) steps, stride doubling, in one buffer.
//   Kogge–Stone, double-buffered: read one buffer, write the other, swap.
//   Brent–Kung: 128 threads, an up-sweep and a down-sweep tree.
// Cost: 256 elements: 1 KiB in, 1 KiB out; a few microseconds, mostly the launch.
// starter: solution
//   Kogge–Stone: 8 steps, stride doubling; one buffer, so two barriers per step (read, then write).
//   Kogge–Stone, double-buffered: read one buffer, write the other, swap: one barrier per step.
//   Brent–Kung: 128 threads, an up-sweep and a down-sweep tree: 2(n-1) adds instead of n log n.
// Cost: 256 elements: 1 KiB in, 1 KiB out. Whatever the scan, this stage is a few microseconds,
//   mostly the launch: with 256 bins the choice of scan hardly shows (the handout's lesson).
// starter: end
// Limits: exactly kLevels elements, one block.
// Ref: Kogge & Stone 1973; Brent & Kung 1982; PMPP 4th ed., chapter 11.
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"

namespace histogram_equalization {
namespace {

// starter: prompt
//> [[maybe_unused]] __global__ void kogge_stone_kernel([[maybe_unused]] const std::uint32_t* hist,
                                                    //> [[maybe_unused]] std::uint32_t* cdf) {
    // TODO(step 4a): Kogge–Stone in one shared buffer of kLevels elements, one per thread. With
    //   one buffer, each step needs two barriers: write a comment for each saying which race it
    //   prevents. (Lab 1's step 2b is the same algorithm.)
// starter: solution
__global__ void kogge_stone_kernel(const std::uint32_t* hist, std::uint32_t* cdf) {
    __shared__ std::uint32_t xy[kLevels];
    const int t = threadIdx.x;
    xy[t] = hist[t];
    for (int stride = 1; stride < kLevels; stride *= 2) {
        // Barrier 1: the load, or the previous step's writes, are complete before anyone reads.
        __syncthreads();
        const std::uint32_t left = t >= stride ? xy[t - stride] : 0u;
        // Barrier 2: every thread has read xy[t - stride] before anyone overwrites an element.
        __syncthreads();
        xy[t] += left;
    }
    cdf[t] = xy[t];
// starter: end
}

// starter: prompt
//> [[maybe_unused]] __global__ void kogge_stone_double_buffer_kernel([[maybe_unused]] const std::uint32_t* hist,
                                                                  //> [[maybe_unused]] std::uint32_t* cdf) {
    // TODO(step 4b): the same steps, reading one of two buffers and writing the other, then
    //   swapping their roles. Why does one barrier per step now suffice? Pitfall: after the last
    //   step, the result is in whichever buffer was written last.
// starter: solution
__global__ void kogge_stone_double_buffer_kernel(const std::uint32_t* hist, std::uint32_t* cdf) {
    __shared__ std::uint32_t buffers[2][kLevels];
    const int t = threadIdx.x;
    int in = 0;
    buffers[in][t] = hist[t];
    for (int stride = 1; stride < kLevels; stride *= 2) {
        // One barrier per step: this step writes the other buffer, so no one overwrites what a
        // slower thread still has to read.
        __syncthreads();
        const std::uint32_t* src = buffers[in];
        buffers[1 - in][t] = t >= stride ? src[t] + src[t - stride] : src[t];
        in = 1 - in;
    }
    cdf[t] = buffers[in][t];
// starter: end
}

// starter: prompt
//> [[maybe_unused]] __global__ void brent_kung_kernel([[maybe_unused]] const std::uint32_t* hist,
                                                   //> [[maybe_unused]] std::uint32_t* cdf) {
    // TODO(step 4c): Brent–Kung with kLevels / 2 threads, two elements each (Lab 1's step 3, on
    //   one section, without the bank-conflict padding: count the adds and the barriers).
// starter: solution
constexpr int kBrentKungThreads = kLevels / 2;  // each thread owns two elements

__global__ void brent_kung_kernel(const std::uint32_t* hist, std::uint32_t* cdf) {
    __shared__ std::uint32_t xy[kLevels];
    const int t = threadIdx.x;
    xy[t] = hist[t];
    xy[t + kBrentKungThreads] = hist[t + kBrentKungThreads];
    // Up-sweep: pairwise sums up the tree; each level writes and reads disjoint slots.
    for (int stride = 1; stride < kLevels; stride *= 2) {
        __syncthreads();
        const int i = (t + 1) * 2 * stride - 1;
        if (i < kLevels) xy[i] += xy[i - stride];
    }
    // Down-sweep: the partial sums flow back down to the elements between them.
    for (int stride = kLevels / 4; stride > 0; stride /= 2) {
        __syncthreads();
        const int i = (t + 1) * 2 * stride - 1;
        if (i + stride < kLevels) xy[i + stride] += xy[i];
    }
    // The last level's writes are complete before the results are read.
    __syncthreads();
    cdf[t] = xy[t];
    cdf[t + kBrentKungThreads] = xy[t + kBrentKungThreads];
// starter: end
}

}  // namespace

// starter: prompt
//> void scan_kogge_stone([[maybe_unused]] const std::uint32_t* hist, [[maybe_unused]] std::uint32_t* cdf,
                      //> [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 4d): launch the three kernels (here and below): one block, as many threads as the
    //   kernel expects, on ctx.stream, checked at once. Then delete the throws.
    //> throw labkit::NotImplemented("scan_kogge_stone (04_scan.cu)");
// starter: solution
void scan_kogge_stone(const std::uint32_t* hist, std::uint32_t* cdf, GpuContext& ctx) {
    kogge_stone_kernel<<<1, kLevels, 0, ctx.stream>>>(hist, cdf);
    CUDA_CHECK_LAUNCH();
// starter: end
}

// starter: prompt
//> void scan_kogge_stone_double_buffer([[maybe_unused]] const std::uint32_t* hist, [[maybe_unused]] std::uint32_t* cdf,
                                    //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("scan_kogge_stone_double_buffer (04_scan.cu)");
// starter: solution
void scan_kogge_stone_double_buffer(const std::uint32_t* hist, std::uint32_t* cdf, GpuContext& ctx) {
    kogge_stone_double_buffer_kernel<<<1, kLevels, 0, ctx.stream>>>(hist, cdf);
    CUDA_CHECK_LAUNCH();
// starter: end
}

// starter: prompt
//> void scan_brent_kung([[maybe_unused]] const std::uint32_t* hist, [[maybe_unused]] std::uint32_t* cdf,
                     //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("scan_brent_kung (04_scan.cu)");
// starter: solution
void scan_brent_kung(const std::uint32_t* hist, std::uint32_t* cdf, GpuContext& ctx) {
    brent_kung_kernel<<<1, kBrentKungThreads, 0, ctx.stream>>>(hist, cdf);
    CUDA_CHECK_LAUNCH();
// starter: end
}

}  // namespace histogram_equalization
