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
#include "labkit/errors.hpp"
#include "labkit/image_io.hpp"

// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

namespace integral_image {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

static_assert(labkit::kMaxImageSide / kTileDim <= kMaxGridY, "one block row per tile row of the tallest image");

// blockDim = (kTileDim, kBlockRows). Tile (tile_x, tile_y) covers input columns
// [tile_x * kTileDim, +kTileDim) and rows [tile_y * kTileDim, +kTileDim).
template <int kBlockRows>
__global__ void __launch_bounds__(kTileDim * kBlockRows)
    transpose_tiled_kernel([[maybe_unused]] View<const std::uint32_t> in, [[maybe_unused]] Output out) {
    static_assert(kTileDim % kBlockRows == 0, "each thread moves a whole number of tile rows");
    [[maybe_unused]] constexpr int kRowsPerThread = kTileDim / kBlockRows;  // the coarsening factor

    // TODO(step T1): declare the tile (1 line): __shared__ std::uint32_t tile[kTileDim][kTileDim + 1];
    //   The extra column puts tile[r][c] in bank (r * 33 + c) % 32, so the column reads of step T5
    //   (fixed c, r = 0..31 across a warp) hit 32 different banks instead of one.
    //
    // TODO(step T2): diagonal block order for ANY grid shape (~5 lines):
    //   linear = blockIdx.x + gridDim.x * blockIdx.y;
    //   tile_y = linear % gridDim.y;  tile_x = (linear / gridDim.y + tile_y) % gridDim.x;
    //   x0 = tile_x * kTileDim;  y0 = tile_y * kTileDim;
    //   This is a bijection for every grid: given (tile_x, tile_y), q = (tile_x - tile_y) mod
    //   gridDim.x and linear = q * gridDim.y + tile_y. (The square-grid formula,
    //   tile_x = (blockIdx.x + blockIdx.y) % gridDim.x, tile_y = blockIdx.x, is not.)
    //
    // TODO(step T3): load the tile (~6 lines), coalesced along input rows:
    //   x = x0 + threadIdx.x;
    //   #pragma unroll
    //   for (int i = 0; i < kRowsPerThread; ++i) { r = threadIdx.y + i * kBlockRows; y = y0 + r;
    //       if (x < in.width && y < in.height) tile[r][threadIdx.x] = in(x, y); }
    //
    // TODO(step T4): one __syncthreads() (1 line): the whole tile must be written before any
    //   thread reads a column that other warps filled.
    //
    // TODO(step T5): store the transposed tile (~6 lines), coalesced along output rows:
    //   ox = y0 + threadIdx.x;
    //   for i as in T3: r = threadIdx.y + i * kBlockRows; oy = x0 + r;
    //       if (ox < out.width && oy < out.height) out(ox, oy) = tile[threadIdx.x][r];
    //   (out(y, x) = in(x, y), and tile[c][r] = in(x0 + r, y0 + c). The slots T3 skipped are
    //   exactly those whose output falls outside out, so this check also skips them.)
}

}  // namespace

void transpose_tiled([[maybe_unused]] View<const std::uint32_t> in, [[maybe_unused]] Output out,
                     [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step T6): launch (~12 lines). Return early for an empty image.
    //   block dim3(kTileDim, kBlockRows); grid dim3(ceil_div(in.width, kTileDim),
    //   ceil_div(in.height, kTileDim)): one block per tile, not per pixel.
    //   kBlockRows is a template argument (so the loops unroll); pick it from the tuning:
    //   switch (tuning.block_rows) { case 8: launch transpose_tiled_kernel<8>; case 16: <16>;
    //   default: throw std::invalid_argument("transpose_tiled: block_rows must be 8 or 16"); }
    //   A small `template <int kBlockRows> void launch(...)` helper keeps the two cases one line
    //   each. Launch on ctx.stream and CUDA_CHECK_LAUNCH() right after. Then delete the throw.
    throw labkit::NotImplemented("transpose_tiled (02_transpose_tiled.cu)");
}

}  // namespace integral_image
