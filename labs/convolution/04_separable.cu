// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 04 — Separable filter: a row pass, then a column pass
// Changes vs 03: for a filter that factors as K(dx, dy) = column[dy + r] * row[dx + r] (box,
//   Gaussian, Sobel), the k x k sum is done as two 1D sums. The row pass stages block_y image rows,
//   each the block's width plus a halo on the left and the right, and writes each row sum,
//   unclamped, to the float image `rows`; the column pass stages block_x columns of `rows`, each
//   the block's height plus a halo above and below, and writes the clamped column sum. The
//   border is applied along x in the first pass and along y in the second.
// Cost: row pass: 2k flops/px, 4 B/px read (plus its horizontal halo), 4 B/px written to `rows`,
//   k shared reads per pixel. Column pass: 2k flops/px, 4 B/px read from `rows` (plus its
//   vertical halo), 4 B/px written, k shared reads per pixel. Two launches; in each, two
//   barriers per tile (after the load, and before a tall image's next pass reuses the tile).
// Limits: only for filters of rank 1 (a general filter is not a product of two vectors); an
//   intermediate float image the size of the input; the sum's rounding differs from the 2D sum's
//   (the grader's tolerance allows it).
// Ref: V. Podlozhnyuk, "Image Convolution with CUDA", NVIDIA whitepaper, 2007 (the
//   convolutionSeparable sample); PMPP 4th ed., chapter 7.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "convolution.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

namespace convolution {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

// Dynamic shared memory a kernel may use without opting in (cudaFuncSetAttribute).
[[maybe_unused]] constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

// TODO(step 4a): two __constant__ arrays of kMaxFilterSize floats, the row weights and the
//   column weights, and set_weights_separable below (as step 2b, twice). Pitfall: which
//   weights multiply which offset: K(dx, dy) = column[dy + r] * row[dx + r], so the row
//   weights go with the horizontal offset dx and the column weights with the vertical dy.

[[maybe_unused]] __global__ void convolve_rows_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output rows,
                                                      [[maybe_unused]] int size, [[maybe_unused]] Border border) {
    // TODO(step 4b): the row pass's tile in dynamic shared memory: one tile row per row of
    //   threads, each the block's width plus a halo on the left and on the right. Why does this
    //   pass need no halo above and below? Load it with the border applied along x (0 for the
    //   zero border); rows below the image need no loading, since no thread reads them.
    //
    // TODO(step 4c): the barrier (a comment naming its race), then rows(x, y) = the sum over
    //   the k taps of the row weights times the tile. Pitfall: do NOT clamp: `rows` is an
    //   intermediate float image, negative or above 255 for some filters, and clamping it here
    //   would change the final result.
    //
    // TODO(step 4d): tall images, as step 3f.
}

[[maybe_unused]] __global__ void convolve_columns_kernel([[maybe_unused]] Input rows, [[maybe_unused]] Output out,
                                                         [[maybe_unused]] int size, [[maybe_unused]] Border border) {
    // TODO(step 4e): the column pass: a tile of the block's height plus a halo above and below,
    //   the block's width wide, loaded from `rows` with the border applied along y now; the
    //   barrier; out(x, y) = clamp_pixel(the sum over the k taps of the column weights times
    //   the tile); tall images as in step 4d. Pitfall: keep the warp's loads along a row of
    //   `rows` (coalesced), even though this pass sums down a column.
}

}  // namespace

void set_weights_separable([[maybe_unused]] const float* row, [[maybe_unused]] const float* column,
                           [[maybe_unused]] int size, [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("set_weights_separable (04_separable.cu)");
}

void convolve_rows([[maybe_unused]] Input in, [[maybe_unused]] Output rows, [[maybe_unused]] int size,
                   [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                   [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 4f): launch each pass (here and below) as in step 3g, each with its own tile's
    //   bytes. Then delete the throws.
    //
    // Think about it (handout, docs/labs/convolution.md): count the multiply-adds per pixel and
    //   the global bytes per pixel of 03 and of these two passes together. For which k should
    //   the separable version win, and does the measurement agree?
    throw labkit::NotImplemented("convolve_rows (04_separable.cu)");
}

void convolve_columns([[maybe_unused]] Input rows, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                      [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                      [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("convolve_columns (04_separable.cu)");
}

}  // namespace convolution
