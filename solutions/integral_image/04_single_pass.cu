// starter: generates labs/integral_image/04_single_pass.cu
// starter: step the one-kernel chained row scan
// 04 — Single-pass chained row scan
// Changes vs 02/03: one kernel per scan pass, and every pixel is read once and written once.
// starter: prompt
//   Each block takes a logical id from an atomic counter, scans its section (4 elements per
//   thread in registers, then warp shuffles, then the warp totals through shared memory), waits
// starter: solution
//   Each block takes a logical id from an atomic counter, scans its section (8 uint8 or 4 uint32
//   elements per thread in registers, then warp shuffles, then the warp totals through shared memory), waits
// starter: end
//   for the running sum of the previous section of its row, and publishes its own for the next.
// starter: solution
//   A block of 512 threads does this for the same section of several consecutive rows (2 to 16,
//   by section size and input type), so the per-block costs (launch, atomic, barriers) are
//   shared by enough bytes: see kBlockThreads.
// starter: end
//   Ids run section-major (all rows' section 0, then all rows' section 1, ...): the section a
//   block waits for was handed out `height` ids earlier and is normally finished long before,
//   so the chain costs one L2 read per block. Row-major ids (section fastest) would put a block
//   and the one it waits for in the same wave: each row's sections would complete one
//   publish-to-read L2 round trip after another, and with S = 256 (32 sections per 8192-pixel
//   row) the resident blocks would spend most of their lives waiting instead of moving data.
// Cost: per element about 2 adds (the register scan and the offset), plus per thread 5 shuffle
//   steps and up to 8 shared-memory reads of warp totals; two barriers per block. Global traffic
// starter: prompt
//   1 + 4 B/px (u8 pass) or 4 + 4 B/px (u32 pass), with 16-byte loads/stores where alignment
//   allows, plus 24 B per section for its chain word (clear, publish, read): 5.09 or 8.09 B/px
// starter: solution
//   1 + 4 B/px (u8 pass) or 4 + 4 B/px (u32 pass), with 8- or 16-byte loads and 16-byte stores
//   where alignment allows, plus 24 B per section for its chain word (clear, publish, read): 5.09 or 8.09 B/px
// starter: end
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
// starter: prompt
//> #include "labkit/errors.hpp"
//>
// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.
// starter: end

namespace integral_image {
namespace {

using labkit::ceil_div, labkit::kWarpSize, labkit::kFullMask;

// starter: prompt
// Coarsening: each thread scans kItems consecutive elements in registers. Four uint32 values are
// one 16-byte access (the widest a thread can issue); four uint8 values make a warp's load one
// full 128-byte line. More items would leave a 256-element section with too few threads to
// keep enough loads in flight.
//> constexpr int kItems = 4;
// starter: solution
// Coarsening: each thread scans kItems<In> consecutive elements in registers and moves them with
// vector accesses. Four uint32 values are one 16-byte access (the widest a thread can issue).
// For uint8 input, four values would be a 4-byte load: measured on an H200 at 8192^2, that left
// the first pass at 59% of copy bandwidth, too few bytes in flight per thread to cover memory
// latency. Eight values (one 8-byte load, two 16-byte stores) keep twice as many bytes in
// flight and still give a 256-element section a whole warp. Sixteen would not.
template <class In>
constexpr int kItems = sizeof(In) == 1 ? 8 : 4;
constexpr int kOutVector = 4;  // uint32 elements per uint4 store
// starter: end
// A chain word packs a flag and a value: bit 32 set means the low 32 bits hold the inclusive
// running sum of that section of its row. Zero (the memset at every call) means "not yet".
// starter: instead [[maybe_unused]] constexpr std::uint64_t kReady = std::uint64_t{1} << 32;
constexpr std::uint64_t kReady = std::uint64_t{1} << 32;

// starter: instead // kItems elements of In as one aligned vector access.
// kItems<In> elements of In as one aligned vector access.
template <class In>
struct Packet;
template <>
struct Packet<std::uint8_t> {
    // starter: instead using type = uchar4;
    using type = uint2;
};
template <>
struct Packet<std::uint32_t> {
    using type = uint4;
};
// starter: prompt
//> using OutPacket = uint4;
//> static_assert(kItems == 4, "the packet types hold four elements: x, y, z, w");
//> static_assert(sizeof(OutPacket) == kItems * sizeof(std::uint32_t), "one output packet per thread");
// starter: solution
static_assert(sizeof(Packet<std::uint8_t>::type) == kItems<std::uint8_t>, "one 8-byte load per thread");
static_assert(sizeof(Packet<std::uint32_t>::type) == kItems<std::uint32_t> * sizeof(std::uint32_t),
              "one 16-byte load per thread");
static_assert(kItems<std::uint8_t> % kOutVector == 0 && kItems<std::uint32_t> % kOutVector == 0,
              "outputs go out in whole uint4 stores");

// Unpacks a vector load into the thread's registers (values widened to uint32).
__device__ void unpack(uint2 p, std::uint32_t (&v)[8]) {
    constexpr int kBitsPerByte = 8;
    constexpr std::uint32_t kByteMask = 0xffu;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        v[i] = (p.x >> (kBitsPerByte * i)) & kByteMask;  // little-endian: element 0 is the low byte
        v[i + 4] = (p.y >> (kBitsPerByte * i)) & kByteMask;
    }
}
__device__ void unpack(uint4 p, std::uint32_t (&v)[4]) { v[0] = p.x, v[1] = p.y, v[2] = p.z, v[3] = p.w; }
// starter: end

// A view can use packets when its base and its row pitch keep every packet aligned (the kit's
// images are 128-byte aligned; a view of arbitrary memory falls back to scalar accesses).
template <class P, class T>
bool packet_aligned(View<T> v) {
    // starter: instead return reinterpret_cast<std::uintptr_t>(v.data) % alignof(P) == 0 && v.pitch * sizeof(T) % alignof(P) == 0;
    return reinterpret_cast<std::uintptr_t>(v.data) % sizeof(P) == 0 && v.pitch * sizeof(T) % sizeof(P) == 0;
}

// starter: prompt
// Given: the warp scan of step 2e, as a function.
//> [[maybe_unused]] __device__ std::uint32_t warp_inclusive_scan(std::uint32_t value, int lane) {
// starter: solution
__device__ std::uint32_t warp_inclusive_scan(std::uint32_t value, int lane) {
// starter: end
    for (int d = 1; d < kWarpSize; d *= 2) {
        const std::uint32_t left = __shfl_up_sync(kFullMask, value, d);
        if (lane >= d) value += left;
    }
    return value;
}

// Memory ordering. The only data one block hands to another is the running sum, and it travels
// starter: prompt
// inside the same aligned 64-bit word as its flag, so a reader that sees the flag sees the value
// written with it (handout, section 5: why two separate words would need fences, and this one
// word does not). Device scope: the reader is another block, possibly on another SM.
// starter: solution
// inside the same aligned 64-bit word as its flag. A 64-bit atomic store and load are
// single-copy atomic: a reader that sees the flag sees the value written with it, never an older
// one. So relaxed order is enough and no __threadfence() is needed. (With a separate flag array
// it would be: store value; __threadfence(); store flag — and load flag; __threadfence(); load
// value on the reader side, so that the flag cannot become visible before the value.)
// Device scope: the reader is another block, possibly on another SM.
// starter: end
using ChainRef = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>;

// starter: prompt
// TODO(step 4a): two small device functions on a chain word (through a ChainRef):
//   - wait_for_running_sum(word): spin until the word has kReady set, then return its running
//     sum (the low 32 bits). Pitfall: a plain load in the loop may be read once and hoisted out
//     by the compiler; the loop must re-read memory every time.
//   - publish_running_sum(word, running_sum): one store of flag and value together.
//   Which memory order do they need, given that flag and value travel in one word?
// starter: solution
__device__ std::uint32_t wait_for_running_sum(std::uint64_t& word) {
    const ChainRef ref(word);
    std::uint64_t seen = ref.load(cuda::memory_order_relaxed);
    while ((seen & kReady) == 0) seen = ref.load(cuda::memory_order_relaxed);
    return static_cast<std::uint32_t>(seen);
}

__device__ void publish_running_sum(std::uint64_t& word, std::uint32_t running_sum) {
    ChainRef(word).store(kReady | running_sum, cuda::memory_order_relaxed);
}
// starter: end

// starter: prompt
// One block scans one section of kSection elements of one row: kSection / kItems threads.
// chain[id] is the running-sum word of logical block id = section * height + row; the block
// before it in its row is id - height.
//> template <class In, int kSection>
//> __global__ void __launch_bounds__(kSection / kItems)
    //> single_pass_kernel([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                       //> [[maybe_unused]] std::uint64_t* chain, [[maybe_unused]] unsigned* counter,
                       //> [[maybe_unused]] int sections, [[maybe_unused]] bool packets) {
    //> using InPacket = typename Packet<In>::type;
    //> static_assert(sizeof(InPacket) == kItems * sizeof(In), "one input packet per thread");
    //> static_assert(kSection % (kItems * kWarpSize) == 0, "a section is a whole number of warps");
    //> [[maybe_unused]] constexpr int kWarps = kSection / kItems / kWarpSize;
//>
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
//> }
// starter: solution
// Rows per block. One block of kBlockThreads scans the same section of several consecutive rows
// (kSection / kItems threads per row). Measured on an H200 at 8192^2 with one row per block, the
// uint8 pass stayed under 60% of copy bandwidth whatever the load width: 65536 blocks of 128
// threads, each paying a block launch, an atomicAdd on the one id counter and two barriers for
// 1 KB of input. Per-block cost, not bytes, set the time; 512-thread blocks cut the block count
// 2x to 16x (by section size) and keep 4 blocks (2048 threads) resident per SM.
constexpr int kBlockThreads = 512;

// chain[section * height + row] is the running-sum word of (section, row), for every section
// that has a successor. Logical ids are section-major: id = section * groups + group, where
// group g holds rows [g * kRows, (g + 1) * kRows). The block a row waits for has id - groups.
template <class In, int kSection>
__global__ void __launch_bounds__(kBlockThreads)
    single_pass_kernel(View<const In> in, Output out, std::uint64_t* chain, unsigned* counter, int sections,
                       int groups, bool packets) {
    using InPacket = typename Packet<In>::type;
    constexpr int kN = kItems<In>;               // elements per thread
    constexpr int kRowThreads = kSection / kN;   // threads on one row's section (threadIdx.x)
    constexpr int kRows = kBlockThreads / kRowThreads;  // rows per block (threadIdx.y)
    constexpr int kWarps = kRowThreads / kWarpSize;     // warps per row
    static_assert(sizeof(InPacket) == kN * sizeof(In), "one input packet per thread");
    static_assert(kRowThreads % kWarpSize == 0, "a row's section is a whole number of warps, so no warp spans two rows");
    static_assert(kBlockThreads % kRowThreads == 0, "a block holds a whole number of rows");
    __shared__ int logical_id;
    __shared__ std::uint32_t row_prefix[kRows];  // running sum of the sections before this one, per row
    __shared__ std::uint32_t warp_totals[kRows][kWarps];
    // Output staging for the uint8 pass (see the stores); one element when unused.
    constexpr int kStagedChunks = kN == kOutVector ? 1 : kSection / kOutVector;
    __shared__ uint4 staged[kRows][kStagedChunks];

    const int t = threadIdx.x;
    const int r = threadIdx.y;
    const int lane = t % kWarpSize;
    const int warp = t / kWarpSize;

    // Logical ids follow the order in which blocks actually start, so the blocks this one will
    // wait for (smaller ids) are already resident and running and cannot be waiting for us:
    // no deadlock, whatever order the hardware schedules blockIdx in.
    if (t == 0 && r == 0) logical_id = static_cast<int>(atomicAdd(counter, 1u));
    __syncthreads();  // every thread needs the id
    const int id = logical_id;
    const int section = id / groups;
    const int row = id % groups * kRows + r;
    const bool row_inside = row < in.height;  // the last group may be partly below the image
    const int x0 = section * kSection + t * kN;
    const bool whole_packet = packets && row_inside && x0 + kN <= in.width;

    // Load kN elements; past the end of the row (or below the image) they are 0.
    std::uint32_t v[kN];
    if (whole_packet) {
        unpack(*reinterpret_cast<const InPacket*>(in.row(row) + x0), v);
    } else {
#pragma unroll
        for (int i = 0; i < kN; ++i) v[i] = row_inside && x0 + i < in.width ? std::uint32_t{in(x0 + i, row)} : 0u;
    }

    // The first thread of each row fetches the running sum of the previous section now, while
    // the loads above are still in flight: the two latencies overlap.
    const std::size_t height = static_cast<std::size_t>(in.height);
    if (t == 0)
        row_prefix[r] = section == 0 || !row_inside ? 0u : wait_for_running_sum(chain[(section - 1) * height + row]);

    // Scan: in registers, then across the warp, then across the row's warps through shared memory.
#pragma unroll
    for (int i = 1; i < kN; ++i) v[i] += v[i - 1];
    const std::uint32_t thread_total = v[kN - 1];
    const std::uint32_t inclusive = warp_inclusive_scan(thread_total, lane);
    if (lane == kWarpSize - 1) warp_totals[r][warp] = inclusive;
    // The warp totals and row_prefix are written before anyone reads them.
    __syncthreads();
    std::uint32_t warp_offset = 0;  // total of the warps before this one in its row
    std::uint32_t section_total = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        const std::uint32_t total = warp_totals[r][w];
        if (w < warp) warp_offset += total;
        section_total += total;
    }
    const std::uint32_t prefix = row_prefix[r];
    // Publish as early as possible: the next section of this row may be waiting for it. The
    // last section of a row has no successor (and no chain word).
    if (t == 0 && row_inside && section + 1 < sections)
        publish_running_sum(chain[section * height + row], prefix + section_total);

    const std::uint32_t offset = prefix + warp_offset + (inclusive - thread_total);
#pragma unroll
    for (int i = 0; i < kN; ++i) v[i] += offset;
    if constexpr (kN == kOutVector) {
        // Four uint32 per thread are one 16-byte store, and a warp's stores are contiguous.
        if (!row_inside) return;
        std::uint32_t* dst = out.row(row);
        if (whole_packet) {
            *reinterpret_cast<uint4*>(dst + x0) = uint4{v[0], v[1], v[2], v[3]};
        } else {
#pragma unroll
            for (int i = 0; i < kN; ++i)
                if (x0 + i < in.width) dst[x0 + i] = v[i];
        }
    } else {
        // Eight uint32 per thread: storing them as two uint4 straight from registers would give
        // each store instruction 16 bytes of every 32-byte sector, the rest coming from the next
        // instruction (measured: the uint8 pass stuck near 60% of copy bandwidth). Staging the
        // row's section in shared memory first lets every store instruction write whole,
        // contiguous sectors: blocked (per thread) to striped (per warp), as CUB's BlockStore does.
#pragma unroll
        for (int i = 0; i < kN; i += kOutVector)
            staged[r][(t * kN + i) / kOutVector] = uint4{v[i], v[i + 1], v[i + 2], v[i + 3]};
        // The whole section is staged before any thread reads another thread's part.
        __syncthreads();
        if (!row_inside) return;
        std::uint32_t* dst = out.row(row);
        const int base = section * kSection;
#pragma unroll
        for (int j = 0; j < kN / kOutVector; ++j) {
            const int chunk = j * kRowThreads + t;  // consecutive threads, consecutive 16-byte chunks
            const int x = base + chunk * kOutVector;
            const uint4 c = staged[r][chunk];
            if (packets && x + kOutVector <= in.width) {
                *reinterpret_cast<uint4*>(dst + x) = c;
            } else {
                const std::uint32_t e[kOutVector] = {c.x, c.y, c.z, c.w};
#pragma unroll
                for (int i = 0; i < kOutVector; ++i)
                    if (x + i < in.width) dst[x + i] = e[i];
            }
        }
    }
}

template <int kSection, class In>
void launch(View<const In> in, Output out, GpuContext& ctx) {
    constexpr int kRowThreads = kSection / kItems<In>;
    constexpr int kRows = kBlockThreads / kRowThreads;
    const int sections = ceil_div(in.width, kSection);
    const int groups = ceil_div(in.height, kRows);
    const long long blocks = static_cast<long long>(sections) * groups;
    if (blocks > INT_MAX) throw std::invalid_argument("scan_rows_single_pass: image too large for int block ids");
    // One scratch array: word 0 is the id counter, then a chain word for every section that has
    // a successor. The previous call left flags set and the counter advanced, so all of it is
    // cleared, stream-ordered before the kernel, by a single memset (each memset is a launch of
    // its own, a few microseconds that count in this pass's time).
    const std::size_t links = static_cast<std::size_t>(sections - 1) * in.height;
    std::uint64_t* words = ctx.workspace->get<std::uint64_t>(Scratch::chain_flags, 1 + links);
    CUDA_CHECK(cudaMemsetAsync(words, 0, (1 + links) * sizeof(std::uint64_t), ctx.stream));
    auto* counter = reinterpret_cast<unsigned*>(words);
    std::uint64_t* chain = words + 1;
    const bool packets = packet_aligned<typename Packet<In>::type>(in) && packet_aligned<uint4>(out);
    single_pass_kernel<In, kSection><<<static_cast<unsigned>(blocks), dim3(kRowThreads, kRows), 0, ctx.stream>>>(
        in, out, chain, counter, sections, groups, packets);
    CUDA_CHECK_LAUNCH();
}
// starter: end

}  // namespace

template <class In>
// starter: prompt
//> void scan_rows_single_pass([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                           //> [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 4h): the launch. kSection is a template argument (shared array sizes, unrolled
    //   loops): choose the instance from tuning.section_size (256, 512 or 1024; anything else is
    //   std::invalid_argument). One block per section and row; refuse an image with more blocks
    //   than an int id can count. The chain words (one per section that has a successor) and the
    //   block counter come from the workspace (Scratch::chain_flags, Scratch::block_counter),
    //   which still holds the last call's values: clear both on ctx.stream before the kernel.
    //   Use packets only when packet_aligned() says both views allow them. Return early for an
    //   empty image; check the launch. Then delete the throw.
    //> throw labkit::NotImplemented("scan_rows_single_pass (04_single_pass.cu)");
// starter: solution
void scan_rows_single_pass(View<const In> in, Output out, const Tuning& tuning, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;  // a zero-block grid is a launch error
    // The section size is a template argument: the warp count sizes a shared array and the
    // loops over warps unroll.
    switch (tuning.section_size) {
        case 256: return launch<256>(in, out, ctx);
        case 512: return launch<512>(in, out, ctx);
        case 1024: return launch<1024>(in, out, ctx);
        default: throw std::invalid_argument("scan_rows_single_pass: section_size must be 256, 512 or 1024");
    }
// starter: end
}

template void scan_rows_single_pass<std::uint8_t>(View<const std::uint8_t>, Output, const Tuning&, GpuContext&);
template void scan_rows_single_pass<std::uint32_t>(View<const std::uint32_t>, Output, const Tuning&, GpuContext&);

}  // namespace integral_image
