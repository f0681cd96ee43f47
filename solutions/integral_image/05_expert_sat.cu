// 05 — Expert: the whole table in tiles, without transposes (optional challenge)
// Changes vs 04: no row scan -> transpose -> row scan -> transpose back. The image is cut into
//   tiles of 512 columns x 64 rows, and the table is built in three kernels:
//   1. band sums: each tile reads its pixels once and writes, for each of its rows, the row's
//      sum inside the tile, for each of its columns, the column's sum inside the tile, and its
//      total (a few KB per tile);
//   2. carries: for each column, the sum of the column sums of the tiles above (an exclusive
//      scan down the bands), and for each tile, the total of all tiles above and to its left;
//   3. tiles: each tile reads its pixels again, scans each row in registers and across the warp,
//      adds the sum of the same row in the tiles to its left, then scans down its columns in
//      shared memory, starting from what the tiles above hold, and writes every sum once.
//   Four parts make out(x, y), for a pixel of the tile at (x0, y0):
//     [tiles above and left]  +  [above, columns x0..x]  +  [left, rows y0..y]  +  [in the tile]
// Cost: global traffic 1 (kernel 1) + 1 + 4 (kernel 3) B/px of image and table, plus the small
//   arrays (4 B per column and band, four times over; the row sums of the tiles to the left):
//   about 6.3 B/px at 8192^2, 1.26x the 5 B/px floor (04's pipeline moves 29 B/px: 5.8x).
//   Measured on an H100 at 8192^2: 0.191 ms, 58.6% of copy bandwidth on 5 B/px (docs/results.md). Per pixel about 3 adds; per
//   16-row chunk three barriers. Shared memory: a 16 x 512 uint32 chunk (32 KB) per block.
// Limits: three launches (about 2 to 3 us each of launch gaps at 8192^2); the image is read
//   twice (a single pass with decoupled look-back between tiles would read it once: the
//   stretch goal). Small images are latency-bound like every other variant.
// Ref: Bilgic, Horn & Masaki 2010, "Efficient integral image computation on the GPU" (tiles,
//   carries, one write of the table); Merrill & Garland 2016, "Single-pass parallel prefix scan
//   with decoupled look-back" (the reduce-then-scan structure and its single-pass successor).
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "integral_image.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/launch.hpp"

namespace integral_image {
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
constexpr int kCarryThreads = 256;                        // kernel 2: one thread per column (and per band)
constexpr int kCarryUnroll = 8;                           // column sums in flight per thread
static_assert(kThreads == kTileWidth, "kernel 3 gives each column of a tile one thread");

__device__ u32 warp_sum(u32 v) {
    for (int d = kWarpSize / 2; d > 0; d /= 2) v += __shfl_xor_sync(kFullMask, v, d);
    return v;
}

__device__ u32 warp_inclusive_scan(u32 v, int lane) {
    for (int d = 1; d < kWarpSize; d *= 2) {
        const u32 left = __shfl_up_sync(kFullMask, v, d);
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
__global__ void __launch_bounds__(kThreads)
    band_sums_kernel(Input in, u32* __restrict__ row_sums, u32* __restrict__ column_sums, u32* __restrict__ tile_sums,
                     bool packets) {
    __shared__ __align__(16) u32 columns[kChunkRows][kTileWidth];
    __shared__ u32 warp_totals[kChunkRows];
    const int tile = blockIdx.x, band = blockIdx.y;
    const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
    const int x0 = tile * kTileWidth + lane * kLanePixels;
    u32 mine[kLanePixels] = {};  // this lane's 16 columns, summed over the warp's rows
    for (int c = 0; c < kChunks; ++c) {
        const int y = band * kBandRows + c * kChunkRows + warp;
        if (y >= in.height) break;  // warp-uniform
        u32 v[kLanePixels];
        unpack(load_lane(in, x0, y, packets), v);
        u32 sum = 0;
#pragma unroll
        for (int i = 0; i < kLanePixels; ++i) {
            sum += v[i];
            mine[i] += v[i];
        }
        sum = warp_sum(sum);
        if (lane == 0) row_sums[static_cast<std::size_t>(tile) * in.height + y] = sum;
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

// Kernel 2: column_carries[band * width + x] = the sum of column x in the bands above (a scan
// down the bands, one thread per column, kCarryUnroll loads in flight); the last block writes
// corners[band * tiles + tile] = the total of the tiles above and to the left (a 2D exclusive
// scan of the tile totals through shared memory: at most 9345 of them, see the launcher).
__global__ void carries_kernel(const u32* __restrict__ column_sums, u32* __restrict__ column_carries,
                               const u32* __restrict__ tile_sums, u32* __restrict__ corners, int width, int bands,
                               int tiles) {
    if (blockIdx.x == gridDim.x - 1) {
        extern __shared__ u32 left[];  // left[band * tiles + tile]: the tiles to the left, same band
        for (int b = threadIdx.x; b < bands; b += blockDim.x) {
            u32 sum = 0;
            for (int t = 0; t < tiles; ++t) {
                left[b * tiles + t] = sum;
                sum += tile_sums[static_cast<std::size_t>(b) * tiles + t];
            }
        }
        __syncthreads();
        for (int t = threadIdx.x; t < tiles; t += blockDim.x) {
            u32 above = 0;
            for (int b = 0; b < bands; ++b) {
                const u32 here = left[b * tiles + t];
                corners[static_cast<std::size_t>(b) * tiles + t] = above;
                above += here;
            }
        }
        return;
    }
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    u32 above = 0;
    int b = 0;
    for (; b + kCarryUnroll <= bands; b += kCarryUnroll) {
        u32 sums[kCarryUnroll];
#pragma unroll
        for (int i = 0; i < kCarryUnroll; ++i) sums[i] = column_sums[static_cast<std::size_t>(b + i) * width + x];
#pragma unroll
        for (int i = 0; i < kCarryUnroll; ++i) {
            column_carries[static_cast<std::size_t>(b + i) * width + x] = above;
            above += sums[i];
        }
    }
    for (; b < bands; ++b) {
        const u32 sum = column_sums[static_cast<std::size_t>(b) * width + x];
        column_carries[static_cast<std::size_t>(b) * width + x] = above;
        above += sum;
    }
}

// Kernel 3: one tile, 16 rows at a time. Thread t owns column t of the tile in the scan down the
// columns and carries its running sum from chunk to chunk.
__global__ void __launch_bounds__(kThreads)
    tiles_kernel(Input in, Output out, const u32* __restrict__ row_sums, const u32* __restrict__ column_carries,
                 const u32* __restrict__ corners, bool packets_in, bool packets_out) {
    __shared__ __align__(16) u32 chunk[kChunkRows][kTileWidth];
    __shared__ u32 warp_totals[kChunkRows];
    const int tile = blockIdx.x, band = blockIdx.y;
    const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
    const int tile_x = tile * kTileWidth;
    const int x0 = tile_x + lane * kLanePixels;

    // The start of column t: the tiles above and to the left, plus the bands above over the
    // tile's columns 0..t (a block-wide inclusive scan of the column carries).
    const int x = tile_x + threadIdx.x;
    u32 carry = x < in.width ? column_carries[static_cast<std::size_t>(band) * in.width + x] : 0;
    carry = warp_inclusive_scan(carry, lane);
    if (lane == kWarpSize - 1) warp_totals[warp] = carry;
    __syncthreads();
    for (int w = 0; w < warp; ++w) carry += warp_totals[w];
    u32 running = corners[static_cast<std::size_t>(band) * gridDim.x + tile] + carry;

    int y = band * kBandRows + warp;
    uint4 next = y < in.height ? load_lane(in, x0, y, packets_in) : uint4{0, 0, 0, 0};
    for (int c = 0; c < kChunks; ++c, y += kChunkRows) {
        const bool row_inside = y < in.height;
        const uint4 packed = row_inside ? next : uint4{0, 0, 0, 0};
        if (c + 1 < kChunks && y + kChunkRows < in.height) next = load_lane(in, x0, y + kChunkRows, packets_in);
        // The same row in the tiles to the left: their sums, one per lane.
        u32 left = 0;
        if (row_inside)
            for (int t = lane; t < tile; t += kWarpSize) left += row_sums[static_cast<std::size_t>(t) * in.height + y];
        left = warp_sum(left);
        // The row inside the tile: in registers, then across the warp.
        u32 v[kLanePixels];
        unpack(packed, v);
#pragma unroll
        for (int i = 1; i < kLanePixels; ++i) v[i] += v[i - 1];
        const u32 lane_total = v[kLanePixels - 1];
        const u32 offset = warp_inclusive_scan(lane_total, lane) - lane_total + left;
#pragma unroll
        for (int s = 0; s < kLaneVectors; ++s) {
            const int c0 = lane * kLanePixels + s * kVector;
            *reinterpret_cast<uint4*>(&chunk[warp][swizzled(c0)]) =
                uint4{v[s * kVector] + offset, v[s * kVector + 1] + offset, v[s * kVector + 2] + offset,
                      v[s * kVector + 3] + offset};
        }
        __syncthreads();
        // Down the columns: each thread its own, in place.
        const int mine = swizzled(threadIdx.x);
#pragma unroll
        for (int r = 0; r < kChunkRows; ++r) {
            running += chunk[r][mine];
            chunk[r][mine] = running;
        }
        __syncthreads();
        // Back out row by row: each warp its row, 512 contiguous bytes per store instruction.
        if (row_inside) {
            u32* row = out.row(y);
#pragma unroll
            for (int s = 0; s < kLaneVectors; ++s) {
                const int col = s * kWarpSize * kVector + lane * kVector;
                const uint4 sums = *reinterpret_cast<const uint4*>(&chunk[warp][swizzled(col)]);
                const int gx = tile_x + col;
                if (packets_out && gx + kVector <= in.width) {
                    *reinterpret_cast<uint4*>(row + gx) = sums;
                } else {
                    const u32 four[kVector] = {sums.x, sums.y, sums.z, sums.w};
                    for (int k = 0; k < kVector && gx + k < in.width; ++k) row[gx + k] = four[k];
                }
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

}  // namespace

void integral_image_expert(Input in, Output out, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;
    const int tiles = ceil_div(in.width, kTileWidth), bands = ceil_div(in.height, kBandRows);
    // Tile totals through shared memory in kernel 2: tiles x bands <= W*H / (512*64) + W/512 +
    // H/64 + 1 <= 9345 for the kit's largest images (2^28 pixels, sides <= 65536): 37 KB.
    const std::size_t corner_bytes = static_cast<std::size_t>(tiles) * bands * sizeof(u32);
    constexpr std::size_t kDefaultSharedBytes = 48 * 1024;
    if (corner_bytes > kDefaultSharedBytes || bands > labkit::kMaxGridY)
        throw std::invalid_argument("integral_image_expert: image too large for the tile carries");
    auto& ws = *ctx.workspace;
    u32* row_sums = ws.get<u32>(Scratch::expert_row_sums, static_cast<std::size_t>(tiles) * in.height);
    u32* column_sums = ws.get<u32>(Scratch::expert_column_sums, static_cast<std::size_t>(bands) * in.width);
    u32* column_carries = ws.get<u32>(Scratch::expert_column_carries, static_cast<std::size_t>(bands) * in.width);
    u32* tile_sums = ws.get<u32>(Scratch::expert_tile_sums, static_cast<std::size_t>(tiles) * bands);
    u32* corners = ws.get<u32>(Scratch::expert_corners, static_cast<std::size_t>(tiles) * bands);
    const dim3 grid(tiles, bands);
    const bool packets_in = aligned16(in), packets_out = aligned16(out);
    band_sums_kernel<<<grid, kThreads, 0, ctx.stream>>>(in, row_sums, column_sums, tile_sums, packets_in);
    CUDA_CHECK(cudaGetLastError());
    const int carry_blocks = ceil_div(in.width, kCarryThreads) + 1;  // + the corners' block
    carries_kernel<<<carry_blocks, kCarryThreads, corner_bytes, ctx.stream>>>(column_sums, column_carries, tile_sums,
                                                                           corners, in.width, bands, tiles);
    CUDA_CHECK(cudaGetLastError());
    tiles_kernel<<<grid, kThreads, 0, ctx.stream>>>(in, out, row_sums, column_carries, corners, packets_in,
                                                     packets_out);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace integral_image
