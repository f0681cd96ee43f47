// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 05 — Normalize and equalize
// Changes vs the CPU: normalize is one block of 256 threads, one per LUT entry. Equalize keeps
//   the 256-byte LUT in shared memory (every pixel looks one entry up, in any order) and maps
//   the pixels with interleaved partitioning, a few per thread.
// Cost: normalize: 1 KiB read, 256 B written. Equalize: 1 B/px read + 1 B/px written, one
//   shared-memory lookup per pixel.
// Limits: the LUT arithmetic is 64-bit: (cdf - cdf_min) * 255 passes 2^32 at about 16.8 Mpixel.
// Ref: Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3; PMPP 4th ed., ch. 9.
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"

namespace histogram_equalization {
namespace {

[[maybe_unused]] constexpr int kPixelsPerThread = 4;  // coarsening of the map

[[maybe_unused]] __global__ void normalize_kernel([[maybe_unused]] const std::uint32_t* cdf,
                                                  [[maybe_unused]] std::uint8_t* lut,
                                                  [[maybe_unused]] std::uint64_t pixels) {
    // TODO(step 5a): cdf_min, shared by the block. An atomicMin over the non-zero entries works;
    //   can you do without any atomic, knowing that a CDF never decreases?
    //
    // TODO(step 5b): thread v writes lut[v] by the header's contract: 64-bit arithmetic (why?),
    //   0 below the first non-zero bin, and the single-valued image that maps to itself.
}

[[maybe_unused]] __global__ void equalize_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                                 [[maybe_unused]] const std::uint8_t* lut) {
    // TODO(step 5c): load the LUT into shared memory (a block may have more or fewer threads
    //   than entries), then map the pixels in a grid-stride loop. Which barrier is needed, and
    //   where?
}

}  // namespace

void normalize([[maybe_unused]] const std::uint32_t* cdf, [[maybe_unused]] std::uint8_t* lut,
               [[maybe_unused]] std::uint64_t pixels, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 5d): one block of kLevels threads, on ctx.stream, checked. Then delete the throw.
    throw labkit::NotImplemented("normalize (05_equalize.cu)");
}

void equalize([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] const std::uint8_t* lut,
              [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 5e): about 1/kPixelsPerThread of one-thread-per-pixel blocks of tuning.block_size,
    //   on ctx.stream, checked. Then delete the throw.
    throw labkit::NotImplemented("equalize (05_equalize.cu)");
}

}  // namespace histogram_equalization
