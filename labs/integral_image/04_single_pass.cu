// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 04 — Single-pass chained row scan
// Changes vs 02/03: one kernel per scan pass, and every pixel is read once and written once.
//   Each block takes a logical id from an atomic counter, scans its section (4 elements per
//   thread in registers, then warp shuffles, then the warp totals through shared memory), waits
//   for the running sum of the previous section of its row, and publishes its own for the next.
//   Ids run section-major (all rows' section 0, then all rows' section 1, ...): the section a
//   block waits for was handed out `height` ids earlier and is normally finished long before,
//   so the chain costs one L2 read per block. Row-major ids (section fastest) would put a block
//   and the one it waits for in the same wave: each row's sections would complete one
//   publish-to-read L2 round trip after another, and with S = 256 (32 sections per 8192-pixel
//   row) the resident blocks would spend most of their lives waiting instead of moving data.
// Cost: per element about 2 adds (the register scan and the offset), plus per thread 5 shuffle
//   steps and up to 8 shared-memory reads of warp totals; two barriers per block. Global traffic
//   1 + 4 B/px (u8 pass) or 4 + 4 B/px (u32 pass), with 16-byte loads/stores where alignment
//   allows, plus 24 B per section for its chain word (clear, publish, read): 5.09 or 8.09 B/px
//   at S = 256, 5.02 or 8.02 at S = 1024.
// Limits: the ids must come from the atomic counter, not blockIdx, for the wait to be safe (see
//   the kernel); a single very long row is a serial chain of sections (inherent to a chained scan).
// Ref: Yan, Long & Zhang 2013, "StreamScan: fast scan algorithms for GPUs without global barrier
//   synchronization"; Merrill & Garland 2016, "Single-pass parallel prefix scan with decoupled
//   look-back".
#include <cuda/atomic>

#include <climits>
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

using labkit::ceil_div, labkit::kWarpSize, labkit::kFullMask;

// Coarsening: each thread scans kItems consecutive elements in registers. Four uint32 values are
// one 16-byte access (the widest a thread can issue); four uint8 values make a warp's load one
// full 128-byte line. More items would leave a 256-element section with too few threads to
// keep enough loads in flight.
constexpr int kItems = 4;
// A chain word packs a flag and a value: bit 32 set means the low 32 bits hold the inclusive
// running sum of that section of its row. Zero (the memset at every call) means "not yet".
[[maybe_unused]] constexpr std::uint64_t kReady = std::uint64_t{1} << 32;

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
static_assert(kItems == 4, "the packet types hold four elements: x, y, z, w");
static_assert(sizeof(OutPacket) == kItems * sizeof(std::uint32_t), "one output packet per thread");

// A view can use packets when its base and its row pitch keep every packet aligned (the kit's
// images are 128-byte aligned; a view of arbitrary memory falls back to scalar accesses).
template <class P, class T>
bool packet_aligned(View<T> v) {
    return reinterpret_cast<std::uintptr_t>(v.data) % alignof(P) == 0 && v.pitch * sizeof(T) % alignof(P) == 0;
}

// Given: the warp scan of step 2e, as a function.
[[maybe_unused]] __device__ std::uint32_t warp_inclusive_scan(std::uint32_t value, int lane) {
    for (int d = 1; d < kWarpSize; d *= 2) {
        const std::uint32_t left = __shfl_up_sync(kFullMask, value, d);
        if (lane >= d) value += left;
    }
    return value;
}

// Memory ordering. The only data one block hands to another is the running sum, and it travels
// inside the same aligned 64-bit word as its flag, so a reader that sees the flag sees the value
// written with it (handout, section 5: why two separate words would need fences, and this one
// word does not). Device scope: the reader is another block, possibly on another SM.
using ChainRef = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>;

// TODO(step 4a): two small device functions on a chain word (through a ChainRef):
//   - wait_for_running_sum(word): spin until the word has kReady set, then return its running
//     sum (the low 32 bits). Pitfall: a plain load in the loop may be read once and hoisted out
//     by the compiler; the loop must re-read memory every time.
//   - publish_running_sum(word, running_sum): one store of flag and value together.
//   Which memory order do they need, given that flag and value travel in one word?

// One block scans one section of kSection elements of one row: kSection / kItems threads.
// chain[id] is the running-sum word of logical block id = section * height + row; the block
// before it in its row is id - height.
template <class In, int kSection>
__global__ void __launch_bounds__(kSection / kItems)
    single_pass_kernel([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                       [[maybe_unused]] std::uint64_t* chain, [[maybe_unused]] unsigned* counter,
                       [[maybe_unused]] int sections, [[maybe_unused]] bool packets) {
    using InPacket = typename Packet<In>::type;
    static_assert(sizeof(InPacket) == kItems * sizeof(In), "one input packet per thread");
    static_assert(kSection % (kItems * kWarpSize) == 0, "a section is a whole number of warps");
    [[maybe_unused]] constexpr int kWarps = kSection / kItems / kWarpSize;

    // TODO(step 4b): the block's shared variables: its logical id, the running sum of the
    //   sections before this one in its row, and one total per warp.
    //
    // TODO(step 4c): the logical id. One thread takes it from the counter (atomicAdd) and the
    //   block shares it. Map it to (row, section) section-major: all rows' section 0 first, then
    //   all rows' section 1, ... (handout, section 5, says why this order is fast and why the id
    //   must not be blockIdx.x). Then this thread's first element in the row.
    //
    // TODO(step 4d): load the thread's kItems elements into registers: one packet load when the
    //   whole packet is inside the row and `packets` allows it, element by element otherwise.
    //   Pitfall: elements past the end of the row count as 0, and are never read.
    //
    // TODO(step 4e): one thread waits for the previous section's running sum (the first section
    //   of a row waits for nobody). Where in the kernel should the wait go so that it overlaps
    //   the loads already in flight?
    //
    // TODO(step 4f): scan the section: in registers (kItems elements), then across the warp
    //   (warp_inclusive_scan, given above), then across the warps through shared memory. What
    //   must be complete before a thread reads the warp totals and the running sum?
    //
    // TODO(step 4g): publish this section's running sum for the next section of the row, as
    //   early as possible (the next block may be waiting), unless it is the row's last section
    //   (which has no chain word). Then add each thread's offset and store, as you loaded.
    //   Pitfall: never write past the end of the row; the grader checks the guard space.
}

}  // namespace

template <class In>
void scan_rows_single_pass([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                           [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 4h): the launch. kSection is a template argument (shared array sizes, unrolled
    //   loops): choose the instance from tuning.section_size (256, 512 or 1024; anything else is
    //   std::invalid_argument). One block per section and row; refuse an image with more blocks
    //   than an int id can count. The chain words (one per section that has a successor) and the
    //   block counter come from the workspace (Scratch::chain_flags, Scratch::block_counter),
    //   which still holds the last call's values: clear both on ctx.stream before the kernel.
    //   Use packets only when packet_aligned() says both views allow them. Return early for an
    //   empty image; check the launch. Then delete the throw.
    throw labkit::NotImplemented("scan_rows_single_pass (04_single_pass.cu)");
}

template void scan_rows_single_pass<std::uint8_t>(View<const std::uint8_t>, Output, const Tuning&, GpuContext&);
template void scan_rows_single_pass<std::uint32_t>(View<const std::uint32_t>, Output, const Tuning&, GpuContext&);

}  // namespace integral_image
