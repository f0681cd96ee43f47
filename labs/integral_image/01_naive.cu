// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 01 — Naive row scan and naive transpose
// Changes vs the CPU baseline: the sequential loop runs on the GPU, one thread per row; the
//   transpose moves one pixel per thread straight from global memory to global memory.
// Cost: scan: W - 1 adds per row, no barriers; 1 + 4 B/px (u8 pass) or 4 + 4 B/px (u32 pass) in
//   theory, but neighbouring threads walk rows one pitch apart, so each warp load touches 32
//   different sectors and only the L1 cache keeps it from re-reading them. Only H threads run:
//   8192 rows fill a few percent of an H100 (132 SMs x 2048 threads).
//   transpose: 4 + 4 B/px; the loads are coalesced, the stores are strided by out.pitch, so every
//   warp store writes 32 sectors of which it uses 4 bytes each.
// Limits: the scan parallelism is the row count; rows are walked serially however long they are.
// Ref: Hwu, Kirk & El Hajj, PMPP 4th ed., ch. 11 (sequential scan); Ruetsch & Micikevicius,
//   "Optimizing Matrix Transpose in CUDA", 2009 (the simple copy-style transpose).
#include <cstdint>

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

// Few rows means few threads: small blocks spread them over more SMs (8192 rows = 128 blocks).
[[maybe_unused]] constexpr int kScanThreads = 64;
// Transpose block: one warp wide (a coalesced 128-byte row of loads) and kTransposeRows tall.
[[maybe_unused]] constexpr int kTransposeRows = 8;
static_assert(labkit::kMaxImageSide / kTransposeRows <= kMaxGridY,
              "one block row per kTransposeRows image rows must fit in gridDim.y for the tallest image");

// Thread y scans row y on its own: exactly the CPU loop, with uint32 wrap-around sums.
template <class In>
__global__ void scan_rows_naive_kernel([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out) {
    // TODO(step 1a): one thread per row. Work out which row this thread owns from its block and
    //   thread index, then walk the row left to right keeping a running sum: this is the CPU
    //   loop, unchanged. Pitfalls: the last block has threads past the last row (they must do
    //   nothing); the sum is std::uint32_t, since the contract is arithmetic modulo 2^32.
    //   Threads never share data here, so no barrier is needed.
}

// One thread per pixel: out(y, x) = in(x, y).
[[maybe_unused]] __global__ void transpose_naive_kernel([[maybe_unused]] View<const std::uint32_t> in,
                                                        [[maybe_unused]] Output out) {
    // TODO(step 1c): one thread per input pixel, writing it to its transposed place. Let
    //   threadIdx.x run along an input row, so a warp's loads are coalesced; then ask yourself
    //   where its 32 stores land (that is what 02_transpose_tiled.cu fixes). Pitfall: the
    //   grid covers more than the image; threads outside it must not touch memory.
}

}  // namespace

template <class In>
void scan_rows_naive([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out, const Tuning&,
                     [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 1b): launch the kernel on ctx.stream with enough kScanThreads-thread blocks to
    //   cover every row (labkit::ceil_div), and check the launch at once with
    //   CUDA_CHECK_LAUNCH(), which reports a bad configuration where it happens. Pitfall: an
    //   empty image would mean a grid of zero blocks, which is itself a launch error.
    //   Then delete the throw.
    throw labkit::NotImplemented("scan_rows_naive (01_naive.cu)");
}

void transpose_naive([[maybe_unused]] View<const std::uint32_t> in, [[maybe_unused]] Output out, const Tuning&,
                     [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 1d): launch with blocks of kTileDim x kTransposeRows threads, enough of them in
    //   x and y to cover the image, on ctx.stream, checked as in step 1b. The static_assert
    //   above is why gridDim.y cannot exceed its limit for any image the kit accepts.
    //   Then delete the throw.
    throw labkit::NotImplemented("transpose_naive (01_naive.cu)");
}

template void scan_rows_naive<std::uint8_t>(View<const std::uint8_t>, Output, const Tuning&, GpuContext&);
template void scan_rows_naive<std::uint32_t>(View<const std::uint32_t>, Output, const Tuning&, GpuContext&);

}  // namespace integral_image
