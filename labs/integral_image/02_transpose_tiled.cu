// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
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
}

}  // namespace

void transpose_tiled([[maybe_unused]] View<const std::uint32_t> in, [[maybe_unused]] Output out,
                     [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step T6): launch one block per tile (not per pixel), with kTileDim x kBlockRows
    //   threads, on ctx.stream, checked at once. kBlockRows is a template argument so that the
    //   loops unroll: choose the instance from tuning.block_rows (8 or 16), and refuse any other
    //   value with std::invalid_argument. Return early for an empty image.
    //   Then delete the throw.
    throw labkit::NotImplemented("transpose_tiled (02_transpose_tiled.cu)");
}

}  // namespace integral_image
