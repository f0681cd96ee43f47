// starter: generates labs/histogram_equalization/05_equalize.cu
// starter: step the LUT (normalize) and the map (equalize)
// 05 — Normalize and equalize
// starter: prompt
// Changes vs the CPU: normalize is one block of 256 threads, one per LUT entry. Equalize keeps
//   the 256-byte LUT in shared memory (every pixel looks one entry up, in any order) and maps
//   the pixels with interleaved partitioning, a few per thread.
// starter: solution
// Changes vs the CPU: normalize is one block of 256 threads, one per LUT entry. cdf_min needs no
//   atomicMin: the CDF never decreases, so the first non-zero entry is the one whose left
//   neighbour is zero, and exactly one thread finds it. Equalize keeps the 256-byte LUT in shared
//   memory (every pixel looks one entry up, in any order) and maps the pixels with interleaved
//   partitioning, a few per thread, walking (x, y) without a division (labkit::PixelStride).
// starter: end
// Cost: normalize: 1 KiB read, 256 B written. Equalize: 1 B/px read + 1 B/px written, one
//   shared-memory lookup per pixel.
// Limits: the LUT arithmetic is 64-bit: (cdf - cdf_min) * 255 passes 2^32 at about 16.8 Mpixel.
// Ref: Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3; PMPP 4th ed., ch. 9.
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
// starter: instead #include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {
namespace {

// starter: instead [[maybe_unused]] constexpr int kPixelsPerThread = 4;  // coarsening of the map
constexpr int kPixelsPerThread = 4;  // coarsening of the map: fewer blocks, each loading the LUT once

// starter: prompt
//> [[maybe_unused]] __global__ void normalize_kernel([[maybe_unused]] const std::uint32_t* cdf,
                                                  //> [[maybe_unused]] std::uint8_t* lut,
                                                  //> [[maybe_unused]] std::uint64_t pixels) {
    // TODO(step 5a): cdf_min, shared by the block. An atomicMin over the non-zero entries works;
    //   can you do without any atomic, knowing that a CDF never decreases?
    //
    // TODO(step 5b): thread v writes lut[v] by the header's contract: 64-bit arithmetic (why?),
    //   0 below the first non-zero bin, and the single-valued image that maps to itself.
// starter: solution
__global__ void normalize_kernel(const std::uint32_t* cdf, std::uint8_t* lut, std::uint64_t pixels) {
    __shared__ std::uint64_t cdf_min;
    const int v = threadIdx.x;
    const std::uint64_t here = cdf[v];
    if (here != 0 && (v == 0 || cdf[v - 1] == 0)) cdf_min = here;  // the first non-zero entry
    // cdf_min is written before anyone reads it (an image is never empty, so some thread writes it).
    __syncthreads();
    const std::uint64_t span = pixels - cdf_min;
    if (span == 0) {
        lut[v] = static_cast<std::uint8_t>(v);  // a single-valued image is its own output
    } else {
        const std::uint64_t scaled = here == 0 ? 0 : ((here - cdf_min) * (kLevels - 1) + span / 2) / span;
        lut[v] = static_cast<std::uint8_t>(scaled);
    }
// starter: end
}

// starter: prompt
//> [[maybe_unused]] __global__ void equalize_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                                 //> [[maybe_unused]] const std::uint8_t* lut) {
    // TODO(step 5c): load the LUT into shared memory (a block may have more or fewer threads
    //   than entries), then map the pixels in a grid-stride loop. Which barrier is needed, and
    //   where?
// starter: solution
__global__ void equalize_kernel(Input in, Output out, const std::uint8_t* lut) {
    __shared__ std::uint8_t table[kLevels];
    for (int v = threadIdx.x; v < kLevels; v += blockDim.x) table[v] = lut[v];
    // The whole table is loaded before any pixel looks it up.
    __syncthreads();
    const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (labkit::PixelStride p(first, static_cast<long long>(gridDim.x) * blockDim.x, in.width); p.y < in.height; p.next())
        out(p.x, p.y) = table[in(p.x, p.y)];
// starter: end
}

}  // namespace

// starter: prompt
//> void normalize([[maybe_unused]] const std::uint32_t* cdf, [[maybe_unused]] std::uint8_t* lut,
               //> [[maybe_unused]] std::uint64_t pixels, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 5d): one block of kLevels threads, on ctx.stream, checked. Then delete the throw.
    //> throw labkit::NotImplemented("normalize (05_equalize.cu)");
// starter: solution
void normalize(const std::uint32_t* cdf, std::uint8_t* lut, std::uint64_t pixels, GpuContext& ctx) {
    if (pixels == 0) return;
    normalize_kernel<<<1, kLevels, 0, ctx.stream>>>(cdf, lut, pixels);
    CUDA_CHECK_LAUNCH();
// starter: end
}

// starter: prompt
//> void equalize([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] const std::uint8_t* lut,
              //> [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 5e): about 1/kPixelsPerThread of one-thread-per-pixel blocks of tuning.block_size,
    //   on ctx.stream, checked. Then delete the throw.
    //> throw labkit::NotImplemented("equalize (05_equalize.cu)");
// starter: solution
void equalize(Input in, Output out, const std::uint8_t* lut, const Tuning& tuning, GpuContext& ctx) {
    const long long pixels = static_cast<long long>(in.width) * in.height;
    if (pixels == 0) return;
    const long long per_block = static_cast<long long>(tuning.block_size) * kPixelsPerThread;
    const long long blocks = labkit::ceil_div(pixels, per_block);
    equalize_kernel<<<static_cast<unsigned>(blocks), tuning.block_size, 0, ctx.stream>>>(in, out, lut);
    CUDA_CHECK_LAUNCH();
// starter: end
}

}  // namespace histogram_equalization
