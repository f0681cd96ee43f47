// starter: generates labs/integral_image/02_transpose_tiled.cu
// starter: step the shared-memory tiled transpose
// 02 — Tiled transpose through shared memory
// Changes vs 01: a block stages a kTileDim x kTileDim tile in shared memory, so both the global
//   loads (along input rows) and the global stores (along output rows) are coalesced; only the
//   shared-memory side is read column-wise, and one padding column makes that conflict-free.
//   Each thread moves kTileDim / block_rows elements (coarsening: fewer, busier threads), and
//   blocks walk the tiles in diagonal order.
// Cost: no adds; one barrier per tile; 4 + 4 B/px of global traffic, every access a full
//   128-byte warp transaction; 2 x 4 B/px of shared traffic.
// Limits: partial tiles at the right and bottom edges are bounds-checked element by element;
//   diagonal order only matters on GPUs that map addresses to DRAM partitions in coarse
//   contiguous chunks (it is close to free elsewhere: two integer divisions per block).
// Ref: Ruetsch & Micikevicius, "Optimizing Matrix Transpose in CUDA", 2009.
#include <cstdint>
#include <stdexcept>

#include "integral_image.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/launch.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/image_io.hpp"
// starter: prompt
//>
// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.
// starter: end

namespace integral_image {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

static_assert(labkit::kMaxImageSide / kTileDim <= kMaxGridY, "one block row per tile row of the tallest image");

// blockDim = (kTileDim, kBlockRows). Tile (tile_x, tile_y) covers input columns
// [tile_x * kTileDim, +kTileDim) and rows [tile_y * kTileDim, +kTileDim).
template <int kBlockRows>
// starter: prompt
//> __global__ void __launch_bounds__(kTileDim * kBlockRows)
    //> transpose_tiled_kernel([[maybe_unused]] View<const std::uint32_t> in, [[maybe_unused]] Output out) {
// starter: solution
__global__ void __launch_bounds__(kTileDim * kBlockRows) transpose_tiled_kernel(View<const std::uint32_t> in,
                                                                               Output out) {
// starter: end
    static_assert(kTileDim % kBlockRows == 0, "each thread moves a whole number of tile rows");
    // starter: prompt
    //> [[maybe_unused]] constexpr int kRowsPerThread = kTileDim / kBlockRows;  // the coarsening factor
    // starter: solution
    constexpr int kRowsPerThread = kTileDim / kBlockRows;  // the coarsening factor
    // The padding column puts tile[r][c] in bank (r * (kTileDim + 1) + c) % 32: reading a column
    // (fixed c, r = 0..31 across a warp) then hits 32 different banks instead of one.
    __shared__ std::uint32_t tile[kTileDim][kTileDim + 1];
    // starter: end

    // starter: prompt
    // TODO(step T1): a shared tile of kTileDim x (kTileDim + 1) elements. Work out, with the
    //   bank of tile[r][c] being (r * row_length + c) % 32, why the extra column makes the
    //   column reads of step T5 conflict-free, and what they cost without it.
    //
    // TODO(step T2): which tile this block moves, in diagonal order: consecutive blocks should
    //   not all write the same band of output rows. Map the linear block index to (tile_x,
    //   tile_y) with a bijection that holds for ANY grid shape, not only square grids (the
    //   square-grid formula repeats tiles on a rectangular grid). Convince yourself it is a
    //   bijection before you code it: every tile exactly once.
    //
    // TODO(step T3): load the tile along input rows (coalesced): each thread moves
    //   kRowsPerThread elements, kBlockRows rows apart. Pitfall: tiles at the right and bottom
    //   edges are partly outside the image; skip those elements.
    //
    // TODO(step T4): one barrier, and say in a comment why it is needed here.
    //
    // TODO(step T5): store the tile transposed, along output rows (coalesced), reading the tile
    //   by columns. Pitfall: the edge check is on the output's size now; check that the slots
    //   T3 skipped are exactly those it skips.
    // starter: solution
    // Diagonal reordering, the variant for rectangular grids (Ruetsch & Micikevicius):
    // number the blocks linearly, give consecutive blocks consecutive tile rows, and shift the
    // tile column by the tile row. (linear -> (tile_x, tile_y)) is a bijection for every grid
    // shape: from (tile_x, tile_y), q = (tile_x - tile_y) mod gridDim.x and then
    // linear = q * gridDim.y + tile_y are recovered uniquely. The square-grid shortcut
    // (tile_x = (blockIdx.x + blockIdx.y) % gridDim.x, tile_y = blockIdx.x) is not one otherwise.
    const int linear = blockIdx.x + gridDim.x * blockIdx.y;
    const int tile_y = linear % gridDim.y;
    const int tile_x = (linear / gridDim.y + tile_y) % gridDim.x;
    const int x0 = tile_x * kTileDim;
    const int y0 = tile_y * kTileDim;

    // Load: lanes run along an input row, each thread covers rows r, r + kBlockRows, ...
    const int x = x0 + threadIdx.x;
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
        const int r = threadIdx.y + i * kBlockRows;
        const int y = y0 + r;
        if (x < in.width && y < in.height) tile[r][threadIdx.x] = in(x, y);
    }
    // The tile is complete before anyone reads a column another warp wrote.
    __syncthreads();

    // Store: out(y, x) = in(x, y). Lanes run along an output row, i.e. down a tile column:
    // out(y0 + c, x0 + r) = tile[c][r]. The slots never loaded are exactly the ones whose output
    // falls outside out, so the same bounds check skips them.
    const int ox = y0 + threadIdx.x;
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
        const int r = threadIdx.y + i * kBlockRows;
        const int oy = x0 + r;
        if (ox < out.width && oy < out.height) out(ox, oy) = tile[threadIdx.x][r];
    }
    // starter: end
}

// starter: solution
template <int kBlockRows>
void launch(View<const std::uint32_t> in, Output out, GpuContext& ctx) {
    const dim3 block(kTileDim, kBlockRows);
    const dim3 grid(ceil_div(in.width, kTileDim), ceil_div(in.height, kTileDim));
    transpose_tiled_kernel<kBlockRows><<<grid, block, 0, ctx.stream>>>(in, out);
    CUDA_CHECK_LAUNCH();
}

// starter: end
}  // namespace

// starter: prompt
//> void transpose_tiled([[maybe_unused]] View<const std::uint32_t> in, [[maybe_unused]] Output out,
                     //> [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step T6): launch one block per tile (not per pixel), with kTileDim x kBlockRows
    //   threads, on ctx.stream, checked at once. kBlockRows is a template argument so that the
    //   loops unroll: choose the instance from tuning.block_rows (8 or 16), and refuse any other
    //   value with std::invalid_argument. Return early for an empty image.
    //   Then delete the throw.
    //> throw labkit::NotImplemented("transpose_tiled (02_transpose_tiled.cu)");
// starter: solution
void transpose_tiled(View<const std::uint32_t> in, Output out, const Tuning& tuning, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;  // a zero-block grid is a launch error
    // The block height is a template argument so that the per-thread loop is fully unrolled.
    switch (tuning.block_rows) {
        case 8: return launch<8>(in, out, ctx);
        case 16: return launch<16>(in, out, ctx);
        default: throw std::invalid_argument("transpose_tiled: block_rows must be 8 or 16");
    }
// starter: end
}

}  // namespace integral_image
