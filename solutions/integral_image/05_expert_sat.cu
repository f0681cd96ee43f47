// starter: generates labs/integral_image/05_expert_sat.cu
// starter: step optional challenge (bonus): the whole table near the 5 B/px floor; then the 64-bit
// starter: step table and the exclusive (W+1)×(H+1) layout
// starter: prompt
// 05 — Expert tier: the whole table near the hardware limit (optional challenge, bonus points)
// Changes vs 04: you are no longer given a pipeline. integral_image_expert() receives the uint8
//   image and must fill the uint32 table, any way you like, and the grader times the whole call.
// The floor: every pixel must be read once (1 B) and every sum written once (4 B): 5 B/px. The
//   04 pipeline moves about 29 B/px (two row scans, two transposes, uint32 in between), so even
//   with every pass at full speed it cannot come close. How far below 29 B/px can you get?
// Cost, limits and reference: yours to write here, as the other files do (what it changes, what
//   it costs in bytes and barriers, where it stops working, and what you read).
// Ref (a starting point): Bilgic, Horn & Masaki 2010, "Efficient integral image computation on
//   the GPU"; Merrill & Garland 2016, "Single-pass parallel prefix scan with decoupled look-back".
// starter: solution
// 05 — Expert: the whole table in tiles, without transposes (optional challenge)
// Changes vs 04: no row scan -> transpose -> row scan -> transpose back. The image is cut into
//   tiles of 512 columns x 64 rows, and the table is built in three kernels:
//   1. band sums: each tile reads its pixels once and writes, for each of its rows, the row's
//      sum inside the tile, for each of its columns, the column's sum inside the tile, and its
//      total (a few KB per tile);
//   2. carries, three small scans in one launch: for each column, the sum of the column sums of
//      the tiles above (down the bands); for each tile, the total of all tiles above and to its
//      left; for each row of each tile, the sum of the same row in the tiles to its left;
//   3. tiles: each tile reads its pixels again, scans each row in registers and across the warp,
//      adds the sum of the same row in the tiles to its left, then scans down its columns in
//      shared memory, starting from what the tiles above hold, and writes every sum once.
//   Four parts make out(x, y), for a pixel of the tile at (x0, y0):
//     [tiles above and left]  +  [above, columns x0..x]  +  [left, rows y0..y]  +  [in the tile]
// Cost: global traffic 1 (kernel 1) + 1 + 4 (kernel 3) B/px of image and table, plus the small
//   arrays (4 B per column and band, four times over; 4 B per row and tile, four times over):
//   about 6.3 B/px at 8192^2, 1.26x the 5 B/px floor (04's pipeline moves 29 B/px: 5.8x).
//   Measured on an H100 at 8192^2: see docs/results.md. Per pixel about 3 adds; per 16-row chunk
//   three barriers. Shared memory: a 16 x 512 uint32 chunk (32 KB) per block.
// Limits: three launches (about 2 to 3 us each of launch gaps at 8192^2); the image is read
//   twice (05_expert_single_pass.cu reads it once, with decoupled look-back between bands, and
//   measured slower on an H100: docs/results.md). Small images are latency-bound like every other
//   variant.
// Ref: Bilgic, Horn & Masaki 2010, "Efficient integral image computation on the GPU" (tiles,
//   carries, one write of the table); Merrill & Garland 2016, "Single-pass parallel prefix scan
//   with decoupled look-back" (the reduce-then-scan structure and its single-pass successor).
// starter: end
// starter: solution
#include <cstddef>
// starter: end
#include <cstdint>
// starter: solution
#include <stdexcept>
// starter: end

#include "integral_image.hpp"
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace integral_image {
// starter: prompt
//>
// A plan that works (there are others). Think of the image as tiles, say a warp's worth of
// 16-byte loads wide (512 pixels) and a few dozen rows tall. For the pixel (x, y) of the tile
// whose top-left corner is (x0, y0), out(x, y) is the sum of four parts:
//   [all tiles above and to the left]  +  [the tiles above, columns x0..x]
//   + [the tiles to the left, rows y0..y]  +  [inside the tile, up to (x, y)]
// The first three need only a few numbers per tile, row and column, which a first pass over the
// image can produce (each tile's row sums, column sums and total) and a small second step can
// turn into carries (scans over the tiles). A last pass then builds every tile's part and adds
// the carries: the image is read twice and the table written once, about 6 B/px.
//
// TODO(step 5a): the first kernel. One block per tile: the sum of each of its rows, of each of
//   its columns, and its total, into small arrays from ctx.workspace (add nothing to the header:
//   Scratch has expert_* slots for you). Which layout makes the later reads coalesced?
//
// TODO(step 5b): the carries: for each column, the column sums of the tiles above it (a scan
//   down the tiles); for each row of each tile, the row sums of the tiles to its left (a scan
//   across the tiles); for each tile, the total of the tiles above and to its left. These arrays
//   are thousands of times smaller than the image: what limits this step is latency and launch,
//   not bandwidth. How many loads does each thread keep in flight?
//
// TODO(step 5c): the last kernel. Per tile: scan each row in registers and across the warp (as
//   in 04), scan down each column (shared memory: which thread owns which column?), add the
//   carries (the tiles above, to the left, and both), and store.
//   Pitfalls: the ragged right and bottom edges (never read or write past them; the grader
//   checks the guard space); shared-memory bank conflicts when a lane writes 16 consecutive
//   words (measure them: ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared); sums wrap
//   modulo 2^32, which unsigned arithmetic does for you.
//
// TODO(step 5d): measure. The grader prints this variant's time and its % of copy bandwidth on
//   the 5 B/px floor. Which of your kernels dominates, and what does the profiler say limits it?
//   (Stretch: a single pass that reads the image once, with decoupled look-back between bands,
//   goes in 05_expert_single_pass.cu, step 5f, not here.)
//
// TODO(step 5e): the two other layouts, each graded as an exercise of its own.
//   integral_image_expert_64: the same table in uint64, exact. At 8192^2 an all-255 image sums
//   past 2^32. Which of your intermediate sums can stay 32-bit (how large can a sum inside one
//   tile get?), and which must not? Keep 32-bit work where it is safe: shared memory and
//   registers are the scarce resources, and a uint64 tile in shared memory is twice the size.
//   integral_image_expert_exclusive: OpenCV's and NPP's layout, (W + 1) x (H + 1) with a zero row
//   and column first. Write it without a second copy of the table. Pitfall: shifted by one
//   element, the rows of `out` are no longer 16-byte aligned; check before a vector store.
//>
//> void integral_image_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("integral_image_expert (05_expert_sat.cu): optional challenge");
//> }
//>
//> void integral_image_expert_64([[maybe_unused]] Input in, [[maybe_unused]] Output64 out,
                              //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("integral_image_expert_64 (05_expert_sat.cu): optional challenge");
//> }
//>
//> void integral_image_expert_exclusive([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                     //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("integral_image_expert_exclusive (05_expert_sat.cu): optional challenge");
//> }
// starter: solution
namespace {

using labkit::ceil_div, labkit::kWarpSize, labkit::kFullMask;
using u32 = std::uint32_t;

constexpr int kLanePixels = 16;                           // one 16-byte load of uint8 per lane
constexpr int kTileWidth = kWarpSize * kLanePixels;       // 512: one warp covers a tile's row
constexpr int kChunkRows = 16;                            // rows in shared memory at a time: a warp each
constexpr int kThreads = kChunkRows * kWarpSize;          // 512, and one thread per tile column
constexpr int kChunks = 4;                                // chunks per tile
constexpr int kBandRows = kChunks * kChunkRows;           // 64: a tile's height
constexpr int kVector = 4;                                // uint32 per 16-byte access
constexpr int kLaneVectors = kLanePixels / kVector;       // 4
constexpr int kCarryThreads = 256;                        // kernel 2's blocks
constexpr int kCarryWarps = kCarryThreads / kWarpSize;    // band slices per block of 32 columns
constexpr int kCarryUnroll = 8;                           // loads in flight per thread in kernel 2
constexpr int kCornerBatch = 8;                           // lines of tiles a warp scans at once (kernel 2)
// Blocks an SM must hold, which caps the registers at 40: 48 warps an SM hide the loads' latency
// better than fewer warps with more loads each. Measured on an H100 at 8192^2 (one device call):
// kernel 1 at 2 blocks (64 registers, its four rows in flight) 168 us in all, at 3 blocks 166 us;
// kernel 3 loading its four rows up front (64 registers, 2 blocks) 171 us.
constexpr int kBandBlocksPerSm = 3;
constexpr int kTileBlocksPerSm = 3;
static_assert(kThreads == kTileWidth, "kernel 3 gives each column of a tile one thread");

__device__ u32 warp_sum(u32 v) {
    for (int d = kWarpSize / 2; d > 0; d /= 2) v += __shfl_xor_sync(kFullMask, v, d);
    return v;
}

template <class T>
__device__ T warp_inclusive_scan(T v, int lane) {
    for (int d = 1; d < kWarpSize; d *= 2) {
        const T left = __shfl_up_sync(kFullMask, v, d);
        if (lane >= d) v += left;
    }
    return v;
}

// The 16 pixels of a lane, packed 4 to a word as in memory: one 16-byte load inside an aligned
// row, byte by byte at the ragged right edge (pixels past the edge are 0 and never read).
__device__ uint4 load_lane(Input in, int x0, int y, bool packets) {
    const std::uint8_t* row = in.row(y);
    if (packets && x0 + kLanePixels <= in.width) return *reinterpret_cast<const uint4*>(row + x0);
    u32 w[kVector] = {0, 0, 0, 0};
    constexpr int kBitsPerByte = 8;
    for (int k = 0; k < kLanePixels && x0 + k < in.width; ++k)
        w[k / kVector] |= u32{row[x0 + k]} << (kBitsPerByte * (k % kVector));
    return {w[0], w[1], w[2], w[3]};
}

__device__ void unpack(uint4 p, u32 (&v)[kLanePixels]) {
    constexpr int kBitsPerByte = 8;
    constexpr u32 kByteMask = 0xffu;
    const u32 words[kVector] = {p.x, p.y, p.z, p.w};
#pragma unroll
    for (int i = 0; i < kLanePixels; ++i) v[i] = (words[i / kVector] >> (kBitsPerByte * (i % kVector))) & kByteMask;
}

// Where column c of a chunk row lives in shared memory. A lane's 16 values are 4 uint4 slots;
// slot j of lane l is stored at slot (j + l / 2) % 4 of the lane's group: without the rotation,
// the 8 lanes of a quarter-warp storing slot j would hit the same 4 banks at a 64-byte stride
// (4-way conflicts). With it, lane stores, the one-thread-per-column scan and the row-major
// read-back are all conflict-free.
__device__ int swizzled(int c) {
    const int lane = c / kLanePixels, slot = (c % kLanePixels) / kVector;
    return lane * kLanePixels + ((slot + lane / 2) % kLaneVectors) * kVector + c % kVector;
}

// Kernel 1: per tile (blockIdx.x) of a band (blockIdx.y), the row sums, column sums and total.
// row_sums[tile * height + y], column_sums[band * width + x], tile_sums[band * tiles + tile].
__global__ void __launch_bounds__(kThreads, kBandBlocksPerSm)
    band_sums_kernel(Input in, u32* __restrict__ row_sums, u32* __restrict__ column_sums, u32* __restrict__ tile_sums,
                     bool packets) {
    __shared__ __align__(16) u32 columns[kChunkRows][kTileWidth];
    __shared__ u32 warp_totals[kChunkRows];
    const int tile = blockIdx.x, band = blockIdx.y;
    const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
    const int x0 = tile * kTileWidth + lane * kLanePixels;
    // The warp's rows, all loads in flight at once (rows past the bottom are zeros).
    uint4 packed[kChunks];
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
        const int y = band * kBandRows + c * kChunkRows + warp;
        packed[c] = y < in.height ? load_lane(in, x0, y, packets) : uint4{0, 0, 0, 0};
    }
    u32 mine[kLanePixels] = {};  // this lane's 16 columns, summed over the warp's rows
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
        u32 v[kLanePixels];
        unpack(packed[c], v);
        u32 sum = 0;
#pragma unroll
        for (int i = 0; i < kLanePixels; ++i) {
            sum += v[i];
            mine[i] += v[i];
        }
        sum = warp_sum(sum);
        const int y = band * kBandRows + c * kChunkRows + warp;
        if (lane == 0 && y < in.height) row_sums[static_cast<std::size_t>(tile) * in.height + y] = sum;
    }
#pragma unroll
    for (int s = 0; s < kLaneVectors; ++s)
        *reinterpret_cast<uint4*>(&columns[warp][swizzled(lane * kLanePixels + s * kVector)]) =
            uint4{mine[s * kVector], mine[s * kVector + 1], mine[s * kVector + 2], mine[s * kVector + 3]};
    __syncthreads();
    u32 column = 0;
#pragma unroll
    for (int w = 0; w < kChunkRows; ++w) column += columns[w][swizzled(threadIdx.x)];
    const int x = tile * kTileWidth + threadIdx.x;
    if (x < in.width) column_sums[static_cast<std::size_t>(band) * in.width + x] = column;
    const u32 warp_total = warp_sum(column);
    if (lane == 0) warp_totals[warp] = warp_total;
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 total = 0;
        for (int w = 0; w < kChunkRows; ++w) total += warp_totals[w];
        tile_sums[static_cast<std::size_t>(band) * gridDim.x + tile] = total;
    }
}

// Kernel 2: three small scans, each a job of its own blocks in one launch (all independent).
// The tile, band and row sums of kernel 1 fit in 32 bits (at most 64 x 512 x 255); the carries
// made from them are Sum (uint32 wraps like the contract, uint64 is exact).
//  - corners[band * tiles + tile] = the total of the tiles above and to the left (block 0: scans
//    along the bands, then down the tiles, in place, a warp per line, several lines at once);
//  - column_carries[band * width + x] = the sum of column x in the bands above (blocks of 32
//    columns: each warp sums a slice of the bands, the slices' totals are scanned in shared
//    memory, then each warp writes its slice's running sums);
//  - row_left[tile * height + y] = the sum of row y in the tiles to the left (one thread per
//    row, kCarryUnroll loads in flight).
// One thread per column walking all the bands, and one block doing the corners alone, left too
// few loads in flight to hide their latency: the step took longer than its few MB justify.
template <class T>
__device__ T warp_exclusive_scan(T v, int lane, T& total) {
    const T inclusive = warp_inclusive_scan(v, lane);
    total = __shfl_sync(kFullMask, inclusive, kWarpSize - 1);
    return inclusive - v;
}

// Exclusive scans of `lines` lines of `length` values each, a warp per line: load(line, i) and
// store(line, i, sum). kCornerBatch lines per warp are loaded before any is scanned, so that their
// loads are in flight together: one line at a time left the step waiting on one load after another.
template <class Sum, class Load, class Store>
__device__ void warp_line_scans(int lines, int length, Load load, Store store) {
    const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize, warps = blockDim.x / kWarpSize;
    for (int first = warp; first < lines; first += warps * kCornerBatch) {
        Sum carry[kCornerBatch] = {};
        for (int i0 = 0; i0 < length; i0 += kWarpSize) {
            const int i = i0 + lane;
            Sum v[kCornerBatch];
#pragma unroll
            for (int k = 0; k < kCornerBatch; ++k) {
                const int line = first + k * warps;
                v[k] = line < lines && i < length ? load(line, i) : Sum{0};
            }
#pragma unroll
            for (int k = 0; k < kCornerBatch; ++k) {
                const int line = first + k * warps;
                Sum total;
                const Sum before = warp_exclusive_scan(v[k], lane, total);
                if (line < lines && i < length) store(line, i, carry[k] + before);
                carry[k] += total;
            }
        }
    }
}

template <class Sum>
__device__ void corners_job(const u32* __restrict__ tile_sums, Sum* corners, int bands, int tiles) {
    const auto at = [tiles](int b, int t) { return static_cast<std::size_t>(b) * tiles + t; };
    // Along each band: the tiles to the left.
    warp_line_scans<Sum>(
        bands, tiles, [&](int b, int t) { return Sum{tile_sums[at(b, t)]}; },
        [&](int b, int t, Sum v) { corners[at(b, t)] = v; });
    __syncthreads();  // makes the block's global writes visible to the block
    // Down each column of tiles, in place: the bands above.
    warp_line_scans<Sum>(
        tiles, bands, [&](int t, int b) { return corners[at(b, t)]; },
        [&](int t, int b, Sum v) { corners[at(b, t)] = v; });
}

template <class Sum>
__device__ void column_carries_job(const u32* __restrict__ column_sums, Sum* __restrict__ column_carries, int block,
                                   int width, int bands) {
    __shared__ Sum slice_totals[kCarryWarps][kWarpSize];
    const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
    const int x = block * kWarpSize + lane;
    const int per_warp = ceil_div(bands, kCarryWarps);
    const int b_begin = min(bands, warp * per_warp), b_end = min(bands, b_begin + per_warp);
    const bool inside = x < width;
    const auto at = [&](int b) { return static_cast<std::size_t>(b) * width + x; };
    Sum total = 0;
    if (inside) {
        int b = b_begin;
        for (; b + kCarryUnroll <= b_end; b += kCarryUnroll) {
#pragma unroll
            for (int i = 0; i < kCarryUnroll; ++i) total += column_sums[at(b + i)];
        }
        for (; b < b_end; ++b) total += column_sums[at(b)];
    }
    slice_totals[warp][lane] = total;
    __syncthreads();
    if (!inside) return;
    Sum above = 0;
    for (int w = 0; w < warp; ++w) above += slice_totals[w][lane];
    int b = b_begin;
    for (; b + kCarryUnroll <= b_end; b += kCarryUnroll) {
        u32 sums[kCarryUnroll];
#pragma unroll
        for (int i = 0; i < kCarryUnroll; ++i) sums[i] = column_sums[at(b + i)];
#pragma unroll
        for (int i = 0; i < kCarryUnroll; ++i) {
            column_carries[at(b + i)] = above;
            above += sums[i];
        }
    }
    for (; b < b_end; ++b) {
        const u32 sum = column_sums[at(b)];
        column_carries[at(b)] = above;
        above += sum;
    }
}

template <class Sum>
__device__ void row_left_job(const u32* __restrict__ row_sums, Sum* __restrict__ row_left, int block, int height,
                             int tiles) {
    const int y = block * kCarryThreads + threadIdx.x;
    if (y >= height) return;
    const auto at = [&](int t) { return static_cast<std::size_t>(t) * height + y; };
    Sum left = 0;
    int t = 0;
    for (; t + kCarryUnroll <= tiles; t += kCarryUnroll) {
        u32 sums[kCarryUnroll];
#pragma unroll
        for (int i = 0; i < kCarryUnroll; ++i) sums[i] = row_sums[at(t + i)];
#pragma unroll
        for (int i = 0; i < kCarryUnroll; ++i) {
            row_left[at(t + i)] = left;
            left += sums[i];
        }
    }
    for (; t < tiles; ++t) {
        const u32 sum = row_sums[at(t)];
        row_left[at(t)] = left;
        left += sum;
    }
}

template <class Sum>
struct Carries {
    Sum* corners;         // [band * tiles + tile]
    Sum* column_carries;  // [band * width + x]
    Sum* row_left;        // [tile * height + y]
};

// Block 0 does the corners (the longest job starts first), then the column blocks, then the rows.
template <class Sum>
__global__ void __launch_bounds__(kCarryThreads)
    carries_kernel(const u32* __restrict__ row_sums, const u32* __restrict__ column_sums,
                   const u32* __restrict__ tile_sums, Carries<Sum> carries, int width, int height, int bands,
                   int tiles) {
    const int column_blocks = ceil_div(width, kWarpSize);
    const int block = static_cast<int>(blockIdx.x);
    if (block == 0)
        corners_job(tile_sums, carries.corners, bands, tiles);
    else if (block <= column_blocks)
        column_carries_job(column_sums, carries.column_carries, block - 1, width, bands);
    else
        row_left_job(row_sums, carries.row_left, block - 1 - column_blocks, height, tiles);
}

// Four consecutive sums to out[x..x+3]: 16-byte stores where the row allows, else one by one.
__device__ void store4(u32* out, int x, int width, const u32 (&v)[kVector], bool packets) {
    if (packets && x + kVector <= width) {
        *reinterpret_cast<uint4*>(out + x) = uint4{v[0], v[1], v[2], v[3]};
        return;
    }
    for (int k = 0; k < kVector && x + k < width; ++k) out[x + k] = v[k];
}
__device__ void store4(std::uint64_t* out, int x, int width, const std::uint64_t (&v)[kVector], bool packets) {
    if (packets && x + kVector <= width) {
        *reinterpret_cast<ulonglong2*>(out + x) = ulonglong2{v[0], v[1]};
        *reinterpret_cast<ulonglong2*>(out + x + 2) = ulonglong2{v[2], v[3]};
        return;
    }
    for (int k = 0; k < kVector && x + k < width; ++k) out[x + k] = v[k];
}

// Kernel 3: one tile, 16 rows at a time. The tile's own sums stay uint32 in shared memory (they
// fit); the carries are added as each value is stored: out(x, y) = column_base(x) +
// row_base(y) + in_tile(x, y), where column_base holds the corner and the bands above (in shared
// memory: in registers, a lane's 16 of them cost a block per SM) and row_base the tiles to the
// left, summed down the rows of the band so far.
template <class Sum>
__global__ void __launch_bounds__(kThreads, kTileBlocksPerSm)
    tiles_kernel(Input in, View<Sum> out, Carries<Sum> carries, bool packets_in, bool packets_out) {
    __shared__ __align__(16) u32 chunk[kChunkRows][kTileWidth];
    __shared__ Sum column_base[kTileWidth];
    __shared__ Sum warp_totals[kChunkRows];
    __shared__ Sum row_lefts[kChunkRows];
    const int tile = blockIdx.x, band = blockIdx.y;
    const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
    const int tile_x = tile * kTileWidth;
    const int x0 = tile_x + lane * kLanePixels;

    // Column t's base: the tiles above and to the left, plus the bands above over the tile's
    // columns 0..t (a block-wide inclusive scan of the column carries).
    {
        const int x = tile_x + threadIdx.x;
        Sum carry = x < in.width ? carries.column_carries[static_cast<std::size_t>(band) * in.width + x] : Sum{0};
        carry = warp_inclusive_scan(carry, lane);
        if (lane == kWarpSize - 1) warp_totals[warp] = carry;
        __syncthreads();
        for (int w = 0; w < warp; ++w) carry += warp_totals[w];
        column_base[threadIdx.x] = carries.corners[static_cast<std::size_t>(band) * gridDim.x + tile] + carry;
        __syncthreads();
    }
    u32 running = 0;  // column threadIdx.x of the tile, summed down the rows so far
    Sum left_above = 0;  // the tiles to the left, summed over the rows of earlier chunks
    int y = band * kBandRows + warp;
    uint4 next = y < in.height ? load_lane(in, x0, y, packets_in) : uint4{0, 0, 0, 0};
    for (int c = 0; c < kChunks; ++c, y += kChunkRows) {
        const bool row_inside = y < in.height;
        const uint4 packed = row_inside ? next : uint4{0, 0, 0, 0};
        if (c + 1 < kChunks && y + kChunkRows < in.height) next = load_lane(in, x0, y + kChunkRows, packets_in);
        if (lane == 0)
            row_lefts[warp] = row_inside ? carries.row_left[static_cast<std::size_t>(tile) * in.height + y] : Sum{0};
        // The row inside the tile: in registers, then across the warp.
        u32 v[kLanePixels];
        unpack(packed, v);
#pragma unroll
        for (int i = 1; i < kLanePixels; ++i) v[i] += v[i - 1];
        const u32 lane_total = v[kLanePixels - 1];
        const u32 offset = warp_inclusive_scan(lane_total, lane) - lane_total;
#pragma unroll
        for (int s = 0; s < kLaneVectors; ++s) {
            const int c0 = lane * kLanePixels + s * kVector;
            *reinterpret_cast<uint4*>(&chunk[warp][swizzled(c0)]) =
                uint4{v[s * kVector] + offset, v[s * kVector + 1] + offset, v[s * kVector + 2] + offset,
                      v[s * kVector + 3] + offset};
        }
        __syncthreads();
        // This warp's row base, and the chunk's total for the next one (broadcast reads).
        Sum row_base = left_above;
#pragma unroll
        for (int r = 0; r < kChunkRows; ++r) {
            const Sum l = row_lefts[r];
            if (r <= warp) row_base += l;
            left_above += l;
        }
        // Down the columns: each thread its own, in place.
        const int mine = swizzled(threadIdx.x);
#pragma unroll
        for (int r = 0; r < kChunkRows; ++r) {
            running += chunk[r][mine];
            chunk[r][mine] = running;
        }
        __syncthreads();
        // Back out row by row: each warp its row, a contiguous run per store instruction.
        if (row_inside && !packets_out) {
            // Rows off the 16-byte grid (the exclusive layout): no vectors, but each store
            // instruction still writes 32 consecutive values, whole sectors but the run's ends.
            // Lane-strided scalar stores left every sector to be merged in the L2 (its
            // throughput, not DRAM's, was the limit: measurements/targets-H100-2026-11-27.md).
            Sum* row = out.row(y);
#pragma unroll
            for (int s = 0; s < kLanePixels; ++s) {
                const int col = s * kWarpSize + lane;
                if (tile_x + col < in.width)
                    row[tile_x + col] = column_base[col] + row_base + chunk[warp][swizzled(col)];
            }
        } else if (row_inside) {
            Sum* row = out.row(y);
#pragma unroll
            for (int s = 0; s < kLaneVectors; ++s) {
                const int col = s * kWarpSize * kVector + lane * kVector;
                const uint4 sums = *reinterpret_cast<const uint4*>(&chunk[warp][swizzled(col)]);
                const u32 four[kVector] = {sums.x, sums.y, sums.z, sums.w};
                Sum values[kVector];
#pragma unroll
                for (int k = 0; k < kVector; ++k) values[k] = column_base[col + k] + row_base + four[k];
                store4(row, tile_x + col, in.width, values, packets_out);
            }
        }
        __syncthreads();  // the next chunk overwrites the shared rows
    }
}

template <class T>
bool aligned16(View<T> v) {
    constexpr std::size_t kBytes = 16;
    return reinterpret_cast<std::uintptr_t>(v.data) % kBytes == 0 && v.pitch * sizeof(T) % kBytes == 0;
}

// The three kernels, writing the table into `out` (the image's size).
template <class Sum>
void summed_area_table(Input in, View<Sum> out, GpuContext& ctx) {
    const int tiles = ceil_div(in.width, kTileWidth), bands = ceil_div(in.height, kBandRows);
    if (bands > labkit::kMaxGridY) throw std::invalid_argument("integral_image_expert: image too tall for the bands");
    auto& ws = *ctx.workspace;
    const auto per_row = static_cast<std::size_t>(tiles) * in.height;
    const auto per_column = static_cast<std::size_t>(bands) * in.width;
    const auto per_tile = static_cast<std::size_t>(tiles) * bands;
    u32* row_sums = ws.get<u32>(Scratch::expert_row_sums, per_row);
    u32* column_sums = ws.get<u32>(Scratch::expert_column_sums, per_column);
    u32* tile_sums = ws.get<u32>(Scratch::expert_tile_sums, per_tile);
    const Carries<Sum> carries{ws.get<Sum>(Scratch::expert_corners, per_tile),
                               ws.get<Sum>(Scratch::expert_column_carries, per_column),
                               ws.get<Sum>(Scratch::expert_row_left, per_row)};
    const dim3 grid(tiles, bands);
    const bool packets_in = aligned16(in), packets_out = aligned16(out);
    band_sums_kernel<<<grid, kThreads, 0, ctx.stream>>>(in, row_sums, column_sums, tile_sums, packets_in);
    CUDA_CHECK(cudaGetLastError());
    // Kernel 2's blocks: the corners, then 32 columns each, then kCarryThreads rows each.
    const int carry_blocks = 1 + ceil_div(in.width, kWarpSize) + ceil_div(in.height, kCarryThreads);
    carries_kernel<Sum><<<carry_blocks, kCarryThreads, 0, ctx.stream>>>(row_sums, column_sums, tile_sums, carries,
                                                                        in.width, in.height, bands, tiles);
    CUDA_CHECK(cudaGetLastError());
    tiles_kernel<Sum><<<grid, kThreads, 0, ctx.stream>>>(in, out, carries, packets_in, packets_out);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void integral_image_expert(Input in, Output out, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;
    summed_area_table(in, out, ctx);
}

void integral_image_expert_64(Input in, Output64 out, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;
    summed_area_table(in, out, ctx);
}

// The (W+1) x (H+1) layout is the same table one row down and one column right, behind a row
// and a column of zeros. Shifted by one element, the rows lose their 16-byte alignment, so the
// tiles are stored a value per lane, 32 consecutive values per store instruction.
void integral_image_expert_exclusive(Input in, Output out, GpuContext& ctx) {
    const std::size_t row_bytes = (static_cast<std::size_t>(in.width) + 1) * sizeof(u32);
    CUDA_CHECK(cudaMemsetAsync(out.row(0), 0, row_bytes, ctx.stream));
    if (in.height > 0)
        CUDA_CHECK(cudaMemset2DAsync(out.row(1), out.pitch * sizeof(u32), 0, sizeof(u32), in.height, ctx.stream));
    if (in.width == 0 || in.height == 0) return;
    summed_area_table(in, Output{out.row(1) + 1, in.width, in.height, out.pitch}, ctx);
}
// starter: end

}  // namespace integral_image
