// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 01 — One thread per pixel
// Changes vs the CPU: a 2D grid of 16x16 blocks covers the image, one thread per pixel; the
//   threads past the right and bottom edges do nothing.
// Cost: 1 B/px read, 1 B/px written, coalesced along rows.
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"
#include "negation.hpp"

namespace negation {
namespace {

[[maybe_unused]] constexpr int kBlockSide = 16;  // 256 threads a block, 16 along a row

[[maybe_unused]] __global__ void negate_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out) {
    // TODO(step 2a): the pixel (x, y) of this thread, and nothing when it lies outside the image.
}

}  // namespace

void negate([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2b): enough kBlockSide x kBlockSide blocks to cover the image (labkit::ceil_div),
    //   on ctx.stream, checked with CUDA_CHECK_LAUNCH(). Then delete this throw.
    throw labkit::NotImplemented("negate (01_negate.cu)");
}

}  // namespace negation
