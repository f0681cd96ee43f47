// starter: generates labs/negation/01_negate.cu
// starter: step one thread per pixel
// 01 — One thread per pixel
// Changes vs the CPU: a 2D grid of 16x16 blocks covers the image, one thread per pixel; the
//   threads past the right and bottom edges do nothing.
// Cost: 1 B/px read, 1 B/px written, coalesced along rows.
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/launch.hpp"
#include "negation.hpp"

namespace negation {
namespace {

// starter: instead [[maybe_unused]] constexpr int kBlockSide = 16;  // 256 threads a block, 16 along a row
constexpr int kBlockSide = 16;  // 256 threads a block, 16 along a row: whole 32-byte sectors

// starter: prompt
//> [[maybe_unused]] __global__ void negate_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out) {
    // TODO(step 2a): the pixel (x, y) of this thread, and nothing when it lies outside the image.
// starter: solution
__global__ void negate_kernel(Input in, Output out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < in.width && y < in.height) out(x, y) = static_cast<std::uint8_t>(kWhite - in(x, y));
// starter: end
}

}  // namespace

// starter: prompt
//> void negate([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2b): enough kBlockSide x kBlockSide blocks to cover the image (labkit::ceil_div),
    //   on ctx.stream, checked with CUDA_CHECK_LAUNCH(). Then delete this throw.
    //> throw labkit::NotImplemented("negate (01_negate.cu)");
// starter: solution
void negate(Input in, Output out, GpuContext& ctx) {
    const dim3 block(kBlockSide, kBlockSide);
    const dim3 grid(labkit::ceil_div(in.width, kBlockSide), labkit::ceil_div(in.height, kBlockSide));
    negate_kernel<<<grid, block, 0, ctx.stream>>>(in, out);
    CUDA_CHECK_LAUNCH();
// starter: end
}

}  // namespace negation
