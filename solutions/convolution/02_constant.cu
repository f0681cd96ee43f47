// starter: generates labs/convolution/02_constant.cu
// starter: step the weights in `__constant__` memory
// 02 — Weights in constant memory
// Changes vs 01: the weights live in this file's __constant__ array (kMaxWeights floats,
//   2.5 KB), copied once per filter by set_weights_constant; the kernel reads them through the
//   constant cache instead of the global load path. Same thread layout as 01.
// Cost: 2 k^2 flops/px; k^2 image reads per pixel from global memory (mostly cache hits),
//   k^2 weight reads per pixel from the constant cache; 4 B/px written.
// Limits: the image reads still go through the global load path, k^2 per pixel; constant memory
//   is 64 KB per program and read-only inside a kernel.
// Ref: PMPP 4th ed., chapter 7 (convolution), section 7.3 (constant memory and caching).
#include <algorithm>
#include <stdexcept>

#include "convolution.hpp"
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/launch.hpp"
// starter: prompt
//>
// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.
// starter: end

namespace convolution {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

// starter: prompt
// TODO(step 2a): the weights' home: a __constant__ array of kMaxWeights floats, here in the
//   anonymous namespace so that it belongs to this file alone. Its size must be known when the
//   file is compiled, hence the largest filter's, not `size * size`.
// starter: solution
__constant__ float c_weights[kMaxWeights];  // K(dx, dy) = c_weights[(dy + r) * size + (dx + r)]
// starter: end

// starter: prompt
//> [[maybe_unused]] __global__ void convolve_constant_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                                          //> [[maybe_unused]] int size, [[maybe_unused]] Border border) {
    // TODO(step 2c): steps 1a to 1c again, reading the weights from your __constant__ array.
    //   Think about it before you measure (handout, docs/labs/convolution.md): when a warp
    //   loads the weight of one tap, which addresses do its 32 lanes ask for, and what does the
    //   constant cache do with such a request?
// starter: solution
// As 01, with the weights from c_weights.
__global__ void convolve_constant_kernel(Input in, Output out, int size, Border border) {
    const int r = size / 2;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= in.width) return;  // the last column of blocks is ragged; no barrier follows
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < in.height; y += gridDim.y * blockDim.y) {
        float sum = 0.0f;
        for (int dy = -r; dy <= r; ++dy) {
            const int sy = border_index(y + dy, in.height, border);
            if (sy < 0) continue;  // a row of the zero border adds nothing
            const float* src = in.row(sy);
            const float* w = c_weights + (dy + r) * size + r;  // w[dx] = K(dx, dy)
            for (int dx = -r; dx <= r; ++dx) {
                const int sx = border_index(x + dx, in.width, border);
                if (sx >= 0) sum += w[dx] * src[sx];
            }
        }
        out(x, y) = clamp_pixel(sum);
    }
// starter: end
}

}  // namespace

// starter: prompt
//> void set_weights_constant([[maybe_unused]] const float* weights, [[maybe_unused]] int size,
                          //> [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2b): copy the size x size weights into the __constant__ array with
    //   cudaMemcpyToSymbolAsync on ctx.stream, inside CUDA_CHECK. Pitfalls: the count is in
    //   bytes; a filter larger than the array would write past its end, so refuse one
    //   (std::invalid_argument). Why is an asynchronous copy on ctx.stream, with no
    //   synchronization, safe for the kernels launched after it?
    //   Then delete the throw.
    //> throw labkit::NotImplemented("set_weights_constant (02_constant.cu)");
// starter: solution
void set_weights_constant(const float* weights, int size, GpuContext& ctx) {
    // A larger filter would write past the end of c_weights.
    if (size < 1 || size > kMaxFilterSize || size % 2 == 0)
        throw std::invalid_argument("set_weights_constant: size must be odd, 1 to kMaxFilterSize");
    // Stream-ordered: the copy lands before any kernel launched after it on ctx.stream reads it.
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_weights, weights, sizeof(float) * size * size, 0, cudaMemcpyHostToDevice,
                                       ctx.stream));
// starter: end
}

// starter: prompt
//> void convolve_constant([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                       //> [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                       //> [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2d): launch as in step 1d. Then delete the throw.
    //> throw labkit::NotImplemented("convolve_constant (02_constant.cu)");
// starter: solution
void convolve_constant(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;  // a zero-block grid is a launch error
    const dim3 block(tuning.block_x, tuning.block_y);
    const dim3 grid(ceil_div(in.width, tuning.block_x), std::min(ceil_div(in.height, tuning.block_y), kMaxGridY));
    convolve_constant_kernel<<<grid, block, 0, ctx.stream>>>(in, out, size, border);
    CUDA_CHECK_LAUNCH();
// starter: end
}

}  // namespace convolution
