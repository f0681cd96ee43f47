// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 03 — Brent–Kung row scan (hierarchical, work-efficient)
// Changes vs 02: the section scan is a reduction tree (up-sweep) followed by a distribution tree
//   (down-sweep): about 2S adds per section instead of S log2(S). Each thread owns 2 elements
//   (blockDim = S / 2), and shared-memory indices are padded by one word per 32 so that the
//   strided tree accesses spread over the banks. The block-sum helpers of 02 are reused as is.
// Cost: 2(S - 1) - log2(S) adds per section; 2 log2(S) barriers: one per tree level (each level
//   reads and writes disjoint slots, so it needs no second one) and one before the results are
//   read. Global traffic as in 02: 13 B/px (u8) or 16 B/px (u32) when a row holds more than one
//   section, 5 or 8 B/px when it fits in one.
// Limits: S must be a power of two, 2..kMaxSectionSize; the trees idle most threads near their
//   top (one active thread at the root). Whether the saved adds show in your times is one of
//   the reflection questions: measure before you decide.
// Ref: Brent & Kung 1982; Harris, Sengupta & Owens, GPU Gems 3 ch. 39 (conflict-free offsets);
//   Hwu, Kirk & El Hajj, PMPP 4th ed., ch. 11.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "integral_image.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/launch.hpp"
#include "labkit/errors.hpp"

// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

namespace integral_image {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

constexpr int kLogNumBanks = 5;                    // shared memory has 2^5 = 32 four-byte banks
[[maybe_unused]] constexpr int kElemsPerThread = 2;

// Slot of element i: one padding word after every 32 elements, so addresses a power-of-two
// stride apart (the tree's access pattern) land in different banks more often.
__host__ __device__ constexpr int conflict_free(int i) { return i + (i >> kLogNumBanks); }
static_assert(conflict_free(31) == 31 && conflict_free(32) == 33, "one padding word per bank row");

// Block (b, y) scans section b of row y: n = 2 * blockDim.x elements, thread t owns elements t
// and t + blockDim.x (half a section apart, so each of the two loads is coalesced).
template <class In>
__global__ void scan_sections_kernel([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                                     [[maybe_unused]] View<std::uint32_t> sums) {
    // Given: extern __shared__ std::uint32_t xy[];   // conflict_free(n - 1) + 1 words
    //   half = blockDim.x; n = kElemsPerThread * half; t = threadIdx.x; x0 = blockIdx.x * n;
    //   a = t; b = t + half;   (the two elements of thread t)
    // Every shared index below goes through conflict_free(): xy[conflict_free(i)].
    //
    // TODO(step 3a): loop over rows as in step 2a and load the thread's two elements. Why are
    //   they half a section apart rather than next to each other? (Think about the warp's loads.)
    //
    // TODO(step 3b): the up-sweep (the reduction tree of section 3 of the handout): log2(n)
    //   levels, strides doubling, fewer active threads at each level. Work out from the figure
    //   which slot a thread updates at each level, and from which. How many barriers does a
    //   level need, given which slots it reads and writes? Afterwards the last slot holds the
    //   section total.
    //
    // TODO(step 3c): the down-sweep (the distribution tree), strides halving, that turns the
    //   partial sums into the inclusive scan. Pitfall: the last level's writes must be visible
    //   before any thread reads its results.
    //
    // TODO(step 3d): write out the two elements (inside the row only) and the section total to
    //   sums(blockIdx.x, y): which thread owns the last slot?
}

}  // namespace

template <class In>
void scan_rows_brent_kung([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                          [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 3e): the same hierarchy as step 2d, with three differences: the section size
    //   must be a power of two in kElemsPerThread..kMaxSectionSize (else std::invalid_argument);
    //   each thread owns kElemsPerThread elements; and the shared array is padded by
    //   conflict_free(), so its size is not simply s words. Reuse scan_block_sums and
    //   add_block_sums from step 2. Then delete the throw.
    throw labkit::NotImplemented("scan_rows_brent_kung (03_brent_kung.cu)");
}

template void scan_rows_brent_kung<std::uint8_t>(View<const std::uint8_t>, Output, const Tuning&, GpuContext&);
template void scan_rows_brent_kung<std::uint32_t>(View<const std::uint32_t>, Output, const Tuning&, GpuContext&);

}  // namespace integral_image
