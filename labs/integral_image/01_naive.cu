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
    // TODO(step 1a): one thread per row (~10 lines).
    //   const int y = blockIdx.x * blockDim.x + threadIdx.x;  return if y >= in.height (the last
    //   block has threads past the last row).
    //   std::uint32_t sum = 0;  for x = 0 .. in.width - 1: sum += in(x, y); out(x, y) = sum;
    //   sum must be std::uint32_t: the contract is arithmetic modulo 2^32. No barrier: threads
    //   never share data.
}

// One thread per pixel: out(y, x) = in(x, y).
[[maybe_unused]] __global__ void transpose_naive_kernel([[maybe_unused]] View<const std::uint32_t> in,
                                                        [[maybe_unused]] Output out) {
    // TODO(step 1c): (~3 lines) x = blockIdx.x * blockDim.x + threadIdx.x, y likewise with .y;
    //   if (x < in.width && y < in.height) out(y, x) = in(x, y);
    //   threadIdx.x runs along an input row, so the loads are coalesced and the stores are
    //   out.pitch apart (that is what 02_transpose_tiled.cu fixes).
}

}  // namespace

template <class In>
void scan_rows_naive([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out, const Tuning&,
                     [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 1b): launch (~3 lines).
    //   if the image is empty (width or height 0) return: a zero-block grid is a launch error.
    //   scan_rows_naive_kernel<<<ceil_div(in.height, kScanThreads), kScanThreads, 0, ctx.stream>>>(in, out);
    //   CUDA_CHECK_LAUNCH();   (right after every launch: it reports a bad configuration at once)
    //   Then delete the throw.
    throw labkit::NotImplemented("scan_rows_naive (01_naive.cu)");
}

void transpose_naive([[maybe_unused]] View<const std::uint32_t> in, [[maybe_unused]] Output out, const Tuning&,
                     [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 1d): launch (~6 lines). Return early for an empty image. Block
    //   dim3(kTileDim, kTransposeRows); grid dim3(ceil_div(in.width, kTileDim),
    //   ceil_div(in.height, kTransposeRows)); launch on ctx.stream; CUDA_CHECK_LAUNCH().
    //   The static_assert above is why gridDim.y can never exceed its limit here.
    //   Then delete the throw.
    throw labkit::NotImplemented("transpose_naive (01_naive.cu)");
}

template void scan_rows_naive<std::uint8_t>(View<const std::uint8_t>, Output, const Tuning&, GpuContext&);
template void scan_rows_naive<std::uint32_t>(View<const std::uint32_t>, Output, const Tuning&, GpuContext&);

}  // namespace integral_image
