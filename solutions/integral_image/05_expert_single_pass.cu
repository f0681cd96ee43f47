// starter: generates labs/integral_image/05_expert_single_pass.cu
// starter: step optional stretch goal (bonus, a group of its own): the same table in one pass that
// starter: step reads the image once, with decoupled look-back between bands
// starter: prompt
// 05 — Expert tier, stretch goal: the whole table in one pass (optional challenge, bonus points)
// Changes vs 05_expert_sat.cu: that plan reads the image twice (once for the tiles' sums, once to
//   build the table) and launches three kernels. integral_image_expert_single_pass() has the same
//   contract as integral_image_expert() and must read each pixel once and write each sum once:
//   one kernel, in which blocks hand each other the sums they need while they run.
// The floor is the same 5 B/px. Your 05 already gets close; what is left to win is the second
//   read of the image and the gaps between launches. Measure before and after: is it worth it?
// Cost, limits and reference: yours to write here, as the other files do (bytes per pixel,
//   barriers, shared memory, and the traffic the blocks exchange).
// Ref (a starting point): Merrill & Garland 2016, "Single-pass parallel prefix scan with decoupled
//   look-back"; Bilgic, Horn & Masaki 2010, "Efficient integral image computation on the GPU".
// starter: solution
// 05 — Expert, stretch goal: the whole table in ONE pass, with decoupled look-back between bands
// Changes vs 05 (05_expert_sat.cu, three kernels): the image is read once, not twice, in one launch
//   instead of three. The image is cut into bands of kBandRows rows. A block takes the next band
//   from an atomic ticket and walks it left to right in chunks of kChunkWidth columns, keeping each
//   row's running sum (its row carry) in registers: nothing travels between blocks along the rows.
//   Down the columns, a chunk's table is the band's own sums plus the table's row above the band:
//     out(x, y) = L(x, y) + out(x, y0 - 1),   L(x, y) = sum over x' <= x and band rows y0..y,
//   and that row belongs to the band above, which may still be working on it. So, per chunk, a band
//   publishes its AGGREGATE (L on its last row, one value per column) as soon as it has it, then
//   looks back: it adds the aggregates of the bands above until it meets one whose INCLUSIVE (out
//   on that band's last row) is ready. The inclusive is the band's last row of the table, already
//   in the output: no second array, only a flag that says the row is written.
//   Within a chunk: a thread-serial scan of a lane's pixels (16, or 8 in Narrow), a warp-shuffle scan across the
//   lanes, plus the row carry; each warp sums its kWarpRows rows down in registers; one thread per
//   column sums the warps (shared memory) and does that column's look-back.
// Cost: global traffic 1 + 4 B/px (the image once, the table once) plus the aggregates, 4 B per
//   column and band, written once: 4 / kBandRows = 0.0625 B/px (Wide). The look-back reads L2, not DRAM:
//   per chunk, a flag per band above (a warp polls 32 at once) and 4 B per column of each band it
//   sums, 0.0625 B/px of the chunk per band summed. A band sums at most kLookBackWindows * 32 - 1
//   aggregates per chunk; once the bands are staggered (see the limits) about half that is
//   expected: some 2 B/px of L2 reads at the default reach of 64, beside the 5 B/px that go through
//   L2 to and from DRAM. One memset per call clears the flags (4 B per band and chunk: 16 KB at
//   8192^2). Per chunk: two block barriers; per warp, one warp barrier and a release (a flag add)
//   for its aggregates; one more release for the inclusive. Shared memory, per block: Wide 160 KB
//   (the chunk's rows, 128 KB; the warps' column offsets, 32 KB), one block of 512 threads per SM;
//   Narrow 40 KB (32 + 8), blocks of 256 threads.
//   Measured with Wide on an H100 at 8192^2 by the grader, kernels only, in one call (docs/results.md):
//   0.173 ms (65% of copy bandwidth on 5 B/px), against 0.167 ms for the three kernels of
//   05_expert_sat.cu: the single pass is correct and reads the image once, and is still slower.
//   Other shapes, same call: bands of 32 rows, two blocks per SM, 0.214 ms; 16 rows, 0.249 ms; a
//   reach of one window (32 bands) instead of two, 0.203 ms. Taller bands won each time: fewer
//   bands, so a shorter chain and fewer look-back steps per pixel. Narrow, forced on the same H100
//   at 8192^2 (measurements/single-pass-shapes-H100-2026-11-27.md): 0.212 ms against Wide's 0.173.
// Limits: the bands form a chain, and that chain is what keeps it above the three kernels. They
//   all start together, so at first every look-back finds only
//   aggregates; a band sums at most kLookBackWindows * 32 - 1 of them, then waits for an inclusive
//   within that reach. The bands settle into groups of that many, each group one publish-to-read
//   latency (a few L2 round trips) behind the group above: a fill of about bands / reach
//   latencies, paid once per call. A longer reach shortens the fill and reads more per chunk. A
//   band is a serial walk: an image at most kBandRows rows tall is one block. The flags are cleared
//   by a memset every call: tagging them with a per-call epoch instead would save that launch, but
//   a workspace buffer holds anything when first allocated, and a leftover word could match the
//   epoch. Wide's 160 KB per block needs a GPU whose blocks may have it (163 KB on sm_80, 227 KB on
//   sm_90); elsewhere (64 KB on sm_75, 99 KB on sm_86, sm_89 and sm_120) the call takes Narrow,
//   which asks the 48 KB any block has: twice the bands of Wide, so a longer chain, and 8-byte loads.
//   The choice asks the device (cudaDevAttrMaxSharedMemoryPerBlockOptin) once per call. One block
//   per SM leaves 16 warps to hide the loads' latency while some wait on the look-back.
// Needs: compute capability 7.5 and 40 KB of shared memory per block (Narrow), on every GPU of the
//   kit; tests/resource_fit_selftest.py checks both shapes' registers and shared memory for sm_75 to
//   sm_90 in dry runs that stand for each GPU.
// Ref: Merrill & Garland 2016, "Single-pass parallel prefix scan with decoupled look-back" (the
//   aggregate/inclusive protocol, here per band and chunk with one value per column); Bilgic, Horn
//   & Masaki 2010, "Efficient integral image computation on the GPU" (tiles, the table written
//   once); Yan, Long & Zhang 2013, "StreamScan" (block ids in start order, for forward progress).
// starter: end
// starter: solution
#include <cuda/atomic>

#include <cstddef>
// starter: end
#include <cstdint>
// starter: solution
#include <type_traits>
// starter: end

#include "integral_image.hpp"
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace integral_image {
// starter: prompt
//>
// A plan that works (there are others). Cut the image into bands of a few dozen rows. One block
// owns a band and walks it left to right in chunks (say a warp's worth of 16-byte loads wide), so
// each row's running sum can stay on chip from one chunk to the next: nothing needs to come from
// the left. What the band needs from above is one number per column: the table's row just above
// the band, out(x, y0 - 1). Then, inside the band,
//   out(x, y) = [the band's own sums, columns 0..x, rows y0..y]  +  out(x, y0 - 1).
// The band above computes that row... while your band is computing its own. That is a scan down
// the bands, one vector per chunk, and 04 already taught you a chained scan.
//
// TODO(step 5f): the band itself, without the part from above. Per chunk: scan each row (as in
//   05: registers, then shuffles, then the row's carry), then sum down the band's rows (which
//   thread owns which column, and where do the rows live meanwhile?). Check it first with a
//   single band (an image at most as tall as one), where nothing comes from above.
//
// TODO(step 5g): the chain. Its counter, flags and aggregates come from ctx.workspace
//   (Scratch::single_pass_flags, Scratch::single_pass_aggregates: see integral_image.hpp), not
//   from cudaMalloc. Give each block its band from an atomic counter, as 04 does, and let
//   each band, per chunk, publish its last row of the table with a flag once it is written; the
//   band below waits for that flag. Which blocks can a block ever wait for, and why can that
//   never deadlock, however few blocks fit on the GPU? Pitfalls: the flag must not become
//   visible before the data it announces (release on the writer's side, acquire on the reader's:
//   cuda::atomic_ref, or __threadfence() and volatile loads); flags left from the previous call
//   (clear them, or make sure an old flag cannot look new); blocks that read a row another block
//   wrote must not get a stale copy from L1.
//
// TODO(step 5h): measure the chain. Every band starts at the same moment, so the band at the
//   bottom waits for every band above it, one publish-to-read latency each, before it can
//   write its first chunk. How long is that at 8192^2 with your band height, and how does it
//   compare with the whole call? Decoupled look-back cuts the chain: a band also publishes, as
//   soon as it has it, its AGGREGATE (its own sums on its last row, nothing from above), and the
//   band below adds the aggregates of the bands above it until it meets one whose INCLUSIVE row
//   is ready. How far back should a band look before it waits instead, and what does each band
//   it looks at cost in reads? Pitfall: a flag per (band, chunk) whose state only ever grows
//   (nothing, aggregate, inclusive) lets a reader trust what it saw.
//
// TODO(step 5i): keep memory busy. While a block waits at a barrier or on the look-back, are
//   its next loads already in flight? Are your stores whole 32-byte sectors per instruction (see
//   04)? How many blocks fit per SM with your shared memory and registers (-Xptxas -v)?
//   Pitfall: a block may have 64 KB of shared memory on a T4 and 227 KB on an H100. A launch that
//   asks more than the GPU gives is reported skipped, not passed: keep a shape that fits 64 KB,
//   and ask the device (cudaDevAttrMaxSharedMemoryPerBlockOptin) before you take a larger one.
//>
//> void integral_image_expert_single_pass([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                       //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("integral_image_expert_single_pass (05_expert_single_pass.cu): optional challenge");
//> }
// starter: solution
namespace {

using labkit::ceil_div, labkit::kWarpSize, labkit::kFullMask;
using u32 = std::uint32_t;

constexpr int kVector = 4;  // uint32 per 16-byte access

// A block's shape: a lane loads lane_pixels pixels of a row at once (16: one 16-byte load; 8: an
// 8-byte one), so a warp covers a chunk row of 32 * lane_pixels columns, and the block has one
// thread per column for the column pass: as many warps as a lane has pixels. band_rows rows per
// band; blocks_per_sm for __launch_bounds__ (the registers each thread may have).
template <int LanePixels, int BandRows, int BlocksPerSm>
struct Shape {
    static constexpr int kLanePixels = LanePixels;
    static constexpr int kLaneVectors = kLanePixels / kVector;  // 16-byte slots of a lane's sums
    static constexpr int kChunkWidth = kWarpSize * kLanePixels;
    static constexpr int kThreads = kChunkWidth;  // the column pass gives each column a thread
    static constexpr int kWarps = kThreads / kWarpSize;
    static constexpr int kBandRows = BandRows;
    static constexpr int kWarpRows = kBandRows / kWarps;  // rows each warp loads, scans and stores
    static constexpr int kBlocksPerSm = BlocksPerSm;
    using Packet = std::conditional_t<kLanePixels == sizeof(uint4), uint4, uint2>;  // a lane's load (uint8 pixels)
    static_assert(sizeof(Packet) == kLanePixels, "one load per lane and row");
    static_assert(kBandRows % kWarps == 0, "every warp has the same number of rows");

    // The chunk's rows, as each warp scanned and summed them, and the offsets the column pass finds
    // for each warp: dynamic shared memory (over the 48 KB a static array may take, for Wide).
    struct Shared {
        u32 rows[kWarps][kWarpRows][kChunkWidth];  // swizzled: see swizzled()
        u32 offsets[kWarps][kChunkWidth];          // for warp w's rows: the warps above, then the bands above
    };

    // A flag per (band, chunk) counts what the band has published for that chunk: each of the
    // kWarps column warps adds one when its 32 aggregates are out, and the warp that owns the
    // band's last row adds one more when that row of the table is written. Zero (the memset) means
    // nothing yet.
    static constexpr u32 kAggregateReady = kWarps;
    static constexpr u32 kInclusiveReady = kAggregateReady + 1;
};

// Wide, the faster where a block may have its 160 KB (sm_80, sm_90): 16-pixel lanes, 512-wide
// chunks, 64-row bands (the chunk's rows, 128 KB; the warps' column offsets, 32 KB), one block of
// 512 threads per SM. Two blocks of 32-row bands (96 KB each, at most 64 registers), where one
// block computes while the other waits, measured slower on the H100.
using Wide = Shape<16, 64, 1>;
// Narrow, for every other GPU (a T4's 64 KB, an RTX 30's or 40's 99 KB): 8-pixel lanes, 256-wide
// chunks, 32-row bands: 32 + 8 KB, under the 48 KB a block has without opting in, and two blocks
// of 256 threads per SM where the SM's shared memory holds two (not on a T4's 64 KB).
using Narrow = Shape<8, 32, 2>;
static_assert(sizeof(Wide::Shared) == 160 * 1024 && sizeof(Narrow::Shared) == 40 * 1024, "the sizes the header states");

// How far back a look-back may sum aggregates before it waits for an inclusive instead: windows of
// a warp's 32 bands. More reach, shorter fill (see the header), more L2 reads per chunk.
constexpr int kLookBackWindows = 2;
constexpr int kLookBackBatch = 8;  // aggregate loads a lane keeps in flight while it sums them

using FlagRef = cuda::atomic_ref<u32, cuda::thread_scope_device>;  // the readers are other blocks

__device__ u32 warp_inclusive_scan(u32 v, int lane) {
    for (int d = 1; d < kWarpSize; d *= 2) {
        const u32 left = __shfl_up_sync(kFullMask, v, d);
        if (lane >= d) v += left;
    }
    return v;
}

constexpr int kBitsPerByte = 8;

// The pixels of a lane, packed 4 to a word as in memory: one load inside an aligned row, byte by
// byte at the ragged right edge (pixels past the edge are 0 and never read).
template <class S>
__device__ typename S::Packet load_lane(Input in, int x0, int y, bool packets) {
    using Packet = typename S::Packet;
    const std::uint8_t* row = in.row(y);
    if (packets && x0 + S::kLanePixels <= in.width) return *reinterpret_cast<const Packet*>(row + x0);
    Packet p{};
    u32* w = reinterpret_cast<u32*>(&p);
#pragma unroll
    for (int k = 0; k < S::kLanePixels; ++k)  // unrolled, so that p stays in registers
        if (x0 + k < in.width) w[k / kVector] |= u32{row[x0 + k]} << (kBitsPerByte * (k % kVector));
    return p;
}

template <class S>
__device__ void unpack(typename S::Packet p, u32 (&v)[S::kLanePixels]) {
    constexpr u32 kByteMask = 0xffu;
    const u32* words = reinterpret_cast<const u32*>(&p);
#pragma unroll
    for (int i = 0; i < S::kLanePixels; ++i) v[i] = (words[i / kVector] >> (kBitsPerByte * (i % kVector))) & kByteMask;
}

// Where column c of a chunk row lives in shared memory (as in 05_expert_sat.cu). A lane's values
// are kLaneVectors uint4 slots; slot j of lane l is stored at slot (j + l * kLanePixels / 32) %
// kLaneVectors of the lane's group (Wide: (j + l / 2) % 4; Narrow: (j + l / 4) % 2): without the
// rotation, the lanes of a quarter-warp storing slot j would hit the same banks (Wide: 4-way,
// Narrow: 2-way conflicts). With it, the lanes' stores, the one-thread-per-column reads and the
// row-major read-back are all conflict-free.
template <class S>
__device__ int swizzled(int c) {
    const int lane = c / S::kLanePixels, slot = (c % S::kLanePixels) / kVector;
    return lane * S::kLanePixels + ((slot + lane * S::kLanePixels / kWarpSize) % S::kLaneVectors) * kVector +
           c % kVector;
}

// Four consecutive sums to out[x..x+3]: a 16-byte store where the row allows, else one by one.
__device__ void store4(u32* out, int x, int width, const u32 (&v)[kVector], bool packets) {
    if (packets && x + kVector <= width) {
        *reinterpret_cast<uint4*>(out + x) = uint4{v[0], v[1], v[2], v[3]};
        return;
    }
    for (int k = 0; k < kVector && x + k < width; ++k) out[x + k] = v[k];
}

// Publishing, by one warp: its lanes' global writes, then __syncwarp() (which orders the lanes'
// memory accesses: the CUDA guide's guarantee for threads that communicate through memory), then
// one release add by lane 0. Release is cumulative: a reader whose acquire sees the add also sees
// every write that happened before it, the other lanes' included (the pattern of cooperative
// groups' grid sync, with a warp instead of a block).
__device__ void publish(u32& flag, int lane) {
    __syncwarp();
    if (lane == 0) FlagRef(flag).fetch_add(1u, cuda::memory_order_release);
}

// The look-back for column x of chunk `chunk_flags` (one flag per band), run by a whole warp (its
// 32 columns) for a band > 0: the sum of column x over all the rows above the band, i.e.
// out(x, y0 - 1). Lane i polls the flag of band nearest - i, so a warp sees 32 bands at once;
// band -1 counts as a published inclusive of zero, so the top bands never wait. Lanes [0, stop)
// are summed as aggregates, lane `stop` as the inclusive it found. The control flow is the same
// in every lane (it depends only on ballots), so the warp stays converged.
template <class S>
__device__ u32 look_back(u32* chunk_flags, const u32* aggregates, std::size_t aggregate_pitch, Output out, int band,
                         int x, int lane) {
    const bool inside = x < out.width;  // columns past the edge take part in the polling only
    u32 sum = 0;
    int nearest = band - 1;  // the nearest band above whose values are not in `sum` yet
    int windows_summed = 0;  // windows of 32 aggregates already in `sum`
    for (;;) {
        const int above = nearest - lane;
        // An acquire load, not a relaxed one and then a fence: a fence would also wait for the loads
        // of the next chunk that this warp has in flight.
        const u32 state =
            above >= 0 ? FlagRef(chunk_flags[above]).load(cuda::memory_order_acquire) : S::kInclusiveReady;
        const unsigned inclusive = __ballot_sync(kFullMask, state == S::kInclusiveReady);
        const unsigned aggregate = __ballot_sync(kFullMask, state >= S::kAggregateReady);
        const int stop = inclusive != 0 ? __ffs(inclusive) - 1 : kWarpSize;
        const unsigned needed = stop == kWarpSize ? kFullMask : (1u << stop) - 1u;
        // Poll again while an aggregate before the inclusive is missing, or, at the end of the
        // reach, until the window holds an inclusive.
        const bool at_reach = windows_summed + 1 >= kLookBackWindows;
        if ((aggregate & needed) != needed || (inclusive == 0 && at_reach)) continue;
        // Lane i acquired band nearest - i; __syncwarp() passes what it saw on to the lanes that
        // read that band's values.
        __syncwarp();
        // L2 loads (__ldcg): values other blocks wrote, never served from a stale L1 line.
        for (int first = 0; first < stop; first += kLookBackBatch) {
            u32 values[kLookBackBatch];
#pragma unroll
            for (int k = 0; k < kLookBackBatch; ++k) {
                const std::size_t at = static_cast<std::size_t>(nearest - first - k) * aggregate_pitch + x;
                values[k] = inside && first + k < stop ? __ldcg(&aggregates[at]) : 0u;
            }
#pragma unroll
            for (int k = 0; k < kLookBackBatch; ++k) sum += values[k];
        }
        if (stop < kWarpSize) {
            const int found = nearest - stop;
            if (found >= 0 && inside) sum += __ldcg(out.row(found * S::kBandRows + S::kBandRows - 1) + x);
            return sum;
        }
        nearest -= kWarpSize;
        ++windows_summed;
    }
}

// One band per block, its id from the ticket. flags[chunk * bands + band]; aggregates[band *
// aggregate_pitch + x] for the bands that have a band below them (aggregate_pitch: the chunks'
// columns, the ragged last one whole).
// Forward progress: ids follow the order in which blocks start, so every band a block waits for
// belongs to a block that is already running and never waits for a later band (band 0 waits for
// nobody): the waits always end, whatever the hardware's block order and however few blocks fit.
template <class S>
__global__ void __launch_bounds__(S::kThreads, S::kBlocksPerSm)
    single_pass_kernel(Input in, Output out, u32* flags, u32* aggregates, std::size_t aggregate_pitch,
                       unsigned* ticket, int bands, int chunks, bool packets_in, bool packets_out) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    constexpr int kLanePixels = S::kLanePixels, kWarps = S::kWarps, kWarpRows = S::kWarpRows;
    typename S::Shared& chunk_sums = *reinterpret_cast<typename S::Shared*>(shared_bytes);
    __shared__ int band_id;
    const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
    if (threadIdx.x == 0) band_id = static_cast<int>(atomicAdd(ticket, 1u));
    __syncthreads();  // every thread needs the band
    const int band = band_id;
    const bool has_below = band + 1 < bands;  // only then is anything published (and the band whole)
    const int first_row = band * S::kBandRows + warp * kWarpRows;  // this warp's rows
    const int column = threadIdx.x;                              // this thread's column in the column pass

    u32 carry[kWarpRows] = {};  // each row's sum over the chunks done so far (same in every lane)
    typename S::Packet next[kWarpRows];  // the next chunk's pixels, loaded a chunk ahead (rows below the image: 0)
#pragma unroll
    for (int r = 0; r < kWarpRows; ++r)
        next[r] = first_row + r < in.height ? load_lane<S>(in, lane * kLanePixels, first_row + r, packets_in)
                                            : typename S::Packet{};

    for (int chunk = 0; chunk < chunks; ++chunk) {
        const int chunk_x = chunk * S::kChunkWidth;
        // Rows: each row in registers, then across the warp, plus its carry; then summed down the
        // warp's rows, and row r's sums (rows 0..r of the warp) go to shared memory.
        u32 down[kLanePixels] = {};
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r) {
            u32 v[kLanePixels];
            unpack<S>(next[r], v);
#pragma unroll
            for (int i = 1; i < kLanePixels; ++i) v[i] += v[i - 1];
            const u32 lane_total = v[kLanePixels - 1];
            const u32 inclusive = warp_inclusive_scan(lane_total, lane);
            const u32 offset = carry[r] + inclusive - lane_total;
            carry[r] += __shfl_sync(kFullMask, inclusive, kWarpSize - 1);
#pragma unroll
            for (int i = 0; i < kLanePixels; ++i) down[i] += v[i] + offset;
#pragma unroll
            for (int s = 0; s < S::kLaneVectors; ++s)
                *reinterpret_cast<uint4*>(&chunk_sums.rows[warp][r][swizzled<S>(lane * kLanePixels + s * kVector)]) =
                    uint4{down[s * kVector], down[s * kVector + 1], down[s * kVector + 2], down[s * kVector + 3]};
        }
        __syncthreads();  // every warp's rows are in shared memory

        // Columns: one thread each. The warps above each warp, and the band's aggregate (L on its
        // last row), which goes out at once; then the look-back for the bands above.
        const int x = chunk_x + column;
        u32 warps_above[kWarps];
        u32 aggregate = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            warps_above[w] = aggregate;
            aggregate += chunk_sums.rows[w][kWarpRows - 1][swizzled<S>(column)];
        }
        u32* chunk_flags = flags + static_cast<std::size_t>(chunk) * bands;
        if (has_below) {
            __stcg(&aggregates[static_cast<std::size_t>(band) * aggregate_pitch + x], aggregate);
            publish(chunk_flags[band], lane);
        }
        // The next chunk's loads, in flight through the look-back, the stores and the next rows'
        // barrier. Issued after the publish, whose release waits for every access this warp has
        // in flight: before it, they would hold the aggregate back.
        if (chunk + 1 < chunks) {
#pragma unroll
            for (int r = 0; r < kWarpRows; ++r)
                if (first_row + r < in.height)
                    next[r] =
                        load_lane<S>(in, chunk_x + S::kChunkWidth + lane * kLanePixels, first_row + r, packets_in);
        }
        const u32 bands_above =
            band == 0 ? 0u : look_back<S>(chunk_flags, aggregates, aggregate_pitch, out, band, x, lane);
#pragma unroll
        for (int w = 0; w < kWarps; ++w) chunk_sums.offsets[w][column] = warps_above[w] + bands_above;
        __syncthreads();  // every column's offsets are in shared memory

        // Out, row by row, each warp its own rows: a contiguous run of 16-byte stores per store
        // instruction. The band's last row first, then its flag: the band below may be waiting.
#pragma unroll
        for (int r = kWarpRows - 1; r >= 0; --r) {
            const int y = first_row + r;
            if (y >= in.height) continue;
            u32* row = out.row(y);
#pragma unroll
            for (int s = 0; s < S::kLaneVectors; ++s) {
                const int col = s * kWarpSize * kVector + lane * kVector;
                const uint4 sums = *reinterpret_cast<const uint4*>(&chunk_sums.rows[warp][r][swizzled<S>(col)]);
                const uint4 offsets = *reinterpret_cast<const uint4*>(&chunk_sums.offsets[warp][col]);
                const u32 four[kVector] = {sums.x + offsets.x, sums.y + offsets.y, sums.z + offsets.z,
                                           sums.w + offsets.w};
                store4(row, chunk_x + col, in.width, four, packets_out);
            }
            if (has_below && warp == kWarps - 1 && r == kWarpRows - 1) publish(chunk_flags[band], lane);
        }
        // The lanes read each other's shared words above; the next chunk's row stores overwrite them.
        __syncwarp();
    }
}

template <class T>
bool aligned16(View<T> v) {
    constexpr std::size_t kBytes = 16;
    return reinterpret_cast<std::uintptr_t>(v.data) % kBytes == 0 && v.pitch * sizeof(T) % kBytes == 0;
}

template <class S>
void launch(Input in, Output out, GpuContext& ctx) {
    const int bands = ceil_div(in.height, S::kBandRows), chunks = ceil_div(in.width, S::kChunkWidth);
    // One array for the ticket (word 0) and the flags: the previous call left both set, and one
    // memset, stream-ordered before the kernel, clears them.
    const std::size_t flag_words = 1 + static_cast<std::size_t>(chunks) * bands;
    u32* words = ctx.workspace->get<u32>(Scratch::single_pass_flags, flag_words);
    const std::size_t aggregate_pitch = static_cast<std::size_t>(chunks) * S::kChunkWidth;
    u32* aggregates =
        ctx.workspace->get<u32>(Scratch::single_pass_aggregates, static_cast<std::size_t>(bands - 1) * aggregate_pitch);
    CUDA_CHECK(cudaMemsetAsync(words, 0, flag_words * sizeof(u32), ctx.stream));
    CUDA_CHECK(cudaFuncSetAttribute(single_pass_kernel<S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(sizeof(typename S::Shared))));
    single_pass_kernel<S><<<bands, S::kThreads, sizeof(typename S::Shared), ctx.stream>>>(
        in, out, words + 1, aggregates, aggregate_pitch, words, bands, chunks, aligned16(in), aligned16(out));
    CUDA_CHECK_LAUNCH();
}

}  // namespace

void integral_image_expert_single_pass(Input in, Output out, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;  // a zero-block grid is a launch error
    // Wide where a block may have its dynamic and static shared memory, else Narrow.
    int device = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes wide{};
    CUDA_CHECK(cudaFuncGetAttributes(&wide, single_pass_kernel<Wide>));
    if (sizeof(Wide::Shared) + wide.sharedSizeBytes <= static_cast<std::size_t>(optin))
        launch<Wide>(in, out, ctx);
    else
        launch<Narrow>(in, out, ctx);
}
// starter: end

}  // namespace integral_image
