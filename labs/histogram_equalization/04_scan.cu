// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 04 — Three scans of the 256 bins
// Changes vs Lab 1's section scans: the whole array is one block's section (256 elements), so
//   there is no hierarchy: one kernel, one block, and the three classic in-block scans side by
//   side.
//   Kogge–Stone: log2(256) steps, stride doubling, in one buffer.
//   Kogge–Stone, double-buffered: read one buffer, write the other, swap.
//   Brent–Kung: 128 threads, an up-sweep and a down-sweep tree.
// Cost: 256 elements: 1 KiB in, 1 KiB out; a few microseconds, mostly the launch.
// Limits: exactly kLevels elements, one block.
// Ref: Kogge & Stone 1973; Brent & Kung 1982; PMPP 4th ed., chapter 11.
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"

namespace histogram_equalization {
namespace {

[[maybe_unused]] __global__ void kogge_stone_kernel([[maybe_unused]] const std::uint32_t* hist,
                                                    [[maybe_unused]] std::uint32_t* cdf) {
    // TODO(step 4a): Kogge–Stone in one shared buffer of kLevels elements, one per thread. With
    //   one buffer, each step needs two barriers: write a comment for each saying which race it
    //   prevents. (Lab 1's step 2b is the same algorithm.)
}

[[maybe_unused]] __global__ void kogge_stone_double_buffer_kernel([[maybe_unused]] const std::uint32_t* hist,
                                                                  [[maybe_unused]] std::uint32_t* cdf) {
    // TODO(step 4b): the same steps, reading one of two buffers and writing the other, then
    //   swapping their roles. Why does one barrier per step now suffice? Pitfall: after the last
    //   step, the result is in whichever buffer was written last.
}

[[maybe_unused]] __global__ void brent_kung_kernel([[maybe_unused]] const std::uint32_t* hist,
                                                   [[maybe_unused]] std::uint32_t* cdf) {
    // TODO(step 4c): Brent–Kung with kLevels / 2 threads, two elements each (Lab 1's step 3, on
    //   one section, without the bank-conflict padding: count the adds and the barriers).
}

}  // namespace

void scan_kogge_stone([[maybe_unused]] const std::uint32_t* hist, [[maybe_unused]] std::uint32_t* cdf,
                      [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 4d): launch the three kernels (here and below): one block, as many threads as the
    //   kernel expects, on ctx.stream, checked at once. Then delete the throws.
    throw labkit::NotImplemented("scan_kogge_stone (04_scan.cu)");
}

void scan_kogge_stone_double_buffer([[maybe_unused]] const std::uint32_t* hist, [[maybe_unused]] std::uint32_t* cdf,
                                    [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("scan_kogge_stone_double_buffer (04_scan.cu)");
}

void scan_brent_kung([[maybe_unused]] const std::uint32_t* hist, [[maybe_unused]] std::uint32_t* cdf,
                     [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("scan_brent_kung (04_scan.cu)");
}

}  // namespace histogram_equalization
