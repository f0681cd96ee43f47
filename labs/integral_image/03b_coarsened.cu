// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 03b — Coarsened warp-shuffle section scan (hierarchical): the ablation between 03 and 04
// Changes vs 03: the section scan only. Each thread loads kItems = 4 consecutive elements (one
//   4-byte uchar4 or 16-byte uint4 access where alignment allows), scans them in registers, then
//   the warp scans the threads' totals with shuffles (no shared memory, no barrier), and the block
//   combines its warps' totals through shared memory: 2 barriers per section and row, where the
//   barriers of 02 and 03 grow with log2(S). The rest is 03's: the section totals go to sums,
//   scan_block_sums and add_block_sums finish the rows, and the tiled transposes sit between.
// Why: 04 changes how a section is scanned (coarsening, shuffles, vector accesses) and how the
//   sections of a row are joined (one chained pass instead of three kernels) at once. This step
//   makes the first change alone, so that 03 -> 03b -> 04 times each by itself (handout, section 4).
// Cost: per element 2 adds (in registers, then the offset); per thread 5 shuffle steps and up to
//   S / 128 shared reads of warp totals. Global traffic and launches as in 02/03: 13 B/px (u8) or
//   16 B/px (u32) in three kernels when a row holds more than one section, 5 or 8 B/px in one
//   kernel when it fits; the sums add 4/S B/px.
// Limits: S a multiple of kItems x 32 = 128, up to kMaxSectionSize: 02/03's sections, so that the
//   block-sum passes are theirs (coarsened, a block of 1024 threads could scan 4096 elements);
//   S / 4 threads per block, 64 at s256.
// GPU needs: nothing past sm_75 (the *_sync warp shuffles of CUDA 9 and later).
// Ref: Hwu, Kirk & El Hajj, PMPP 4th ed., ch. 11 (thread coarsening in scan); Merrill & Garland
//   2016, and CUB's cub::BlockScan with BLOCK_SCAN_WARP_SCANS (the same registers -> warp -> block
//   layering; the kit's peer-cub-blockscan rows time it in this pipeline).
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

using labkit::ceil_div, labkit::kWarpSize, labkit::kFullMask, labkit::kMaxGridY;

// Coarsening: four elements per thread are one vector access for both passes: a uchar4 (a warp
// reads one whole 128-byte line of the uint8 image) or a uint4 (16 bytes, the widest access a
// thread can issue), and their four uint32 sums are one uint4 store.
constexpr int kItems = 4;
// A section is a whole number of warps, so that no warp straddles two sections.
constexpr int kSectionQuantum = kItems * kWarpSize;
constexpr int kMaxThreads = kMaxSectionSize / kItems;  // 256: the largest block
[[maybe_unused]] constexpr int kMaxWarps = kMaxThreads / kWarpSize;  // 8: one total each, in shared memory
static_assert(kMaxSectionSize % kSectionQuantum == 0, "the largest section is a whole number of warps");

// kItems elements of In as one aligned vector access.
template <class In>
struct Packet;
template <>
struct Packet<std::uint8_t> {
    using type = uchar4;
};
template <>
struct Packet<std::uint32_t> {
    using type = uint4;
};
using OutPacket = uint4;
static_assert(sizeof(Packet<std::uint8_t>::type) == kItems * sizeof(std::uint8_t) &&
                  sizeof(Packet<std::uint32_t>::type) == kItems * sizeof(std::uint32_t) &&
                  sizeof(OutPacket) == kItems * sizeof(std::uint32_t),
              "one packet holds a thread's kItems elements: x, y, z, w");

// A view can use packets when its base and its row pitch keep every packet aligned (the kit's
// images are 128-byte aligned; a view of arbitrary memory falls back to scalar accesses).
template <class P, class T>
bool packet_aligned(View<T> v) {
    return reinterpret_cast<std::uintptr_t>(v.data) % alignof(P) == 0 && v.pitch * sizeof(T) % alignof(P) == 0;
}

// Given: the warp scan of step 2e, as a function (step 4 gives it too).
[[maybe_unused]] __device__ std::uint32_t warp_inclusive_scan(std::uint32_t value, int lane) {
    for (int d = 1; d < kWarpSize; d *= 2) {
        const std::uint32_t left = __shfl_up_sync(kFullMask, value, d);
        if (lane >= d) value += left;
    }
    return value;
}

// Block (b, y) scans section b of row y: blockDim.x = S / kItems threads, thread t owning the
// kItems consecutive elements from x0 = b * S + t * kItems. Rows are looped over (gridDim.y <= 65535).
template <class In>
__global__ void __launch_bounds__(kMaxThreads)
    coarsened_sections_kernel([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                              [[maybe_unused]] View<std::uint32_t> sums, [[maybe_unused]] bool packets) {
    // TODO(step A1): loop over the rows this block owns, as in step 2a, and load the thread's
    //   kItems elements into registers (std::uint32_t v[kItems]): one Packet<In> load when the
    //   whole packet lies inside the row and `packets` allows it, element by element otherwise.
    //   Why four consecutive elements per thread, when step 3 gave a thread two elements half a
    //   section apart? Think of what one warp's load instruction reads in each case. Pitfall:
    //   elements past the end of the row count as 0 and are never read.
    //
    // TODO(step A2): scan the kItems values in registers (no other thread is involved), then scan
    //   the threads' totals across the warp with warp_inclusive_scan. From the warp's inclusive
    //   value and the thread's own total, what is the sum of everything before this thread's
    //   first element, within its warp?
    //
    // TODO(step A3): combine the warps: one lane of each warp writes the warp's total to a
    //   __shared__ array of kMaxWarps words; then every thread adds the totals of the warps
    //   before its own (its offset) and of all of them (the section total). Two barriers per row:
    //   write a comment at each that says what goes wrong without it. Hint for the second: the
    //   loop's next row writes the same array. No image the grader checks is tall enough to give
    //   a block a second row (more than kMaxGridY rows), so no test catches a missing second
    //   barrier: reason it out.
    //
    // TODO(step A4): add the offset to the thread's values and store them as you loaded them
    //   (one OutPacket store when whole, element by element inside the row otherwise), and write
    //   the section total to sums(blockIdx.x, y) from one thread. Pitfall: never write past the
    //   end of the row; the grader checks the guard space.
}

}  // namespace

template <class In>
void scan_rows_coarsened([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                         [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step A5): the hierarchy of step 2d, with the kernel above for the sections: refuse a
    //   section size that is not a multiple of kSectionQuantum in kSectionQuantum..kMaxSectionSize
    //   (std::invalid_argument); one block of S / kItems threads per section and row (rows capped
    //   at kMaxGridY); no dynamic shared memory (the kernel's array is static). Packets only when
    //   packet_aligned() allows them for the input (Packet<In>::type) and the output (OutPacket).
    //   Then scan_block_sums and add_block_sums from step 2, when a row has more than one section.
    //   Then delete the throw, and time this step beside steps 3 and 4 (handout, section 4).
    throw labkit::NotImplemented("scan_rows_coarsened (03b_coarsened.cu)");
}

template void scan_rows_coarsened<std::uint8_t>(View<const std::uint8_t>, Output, const Tuning&, GpuContext&);
template void scan_rows_coarsened<std::uint32_t>(View<const std::uint32_t>, Output, const Tuning&, GpuContext&);

}  // namespace integral_image
