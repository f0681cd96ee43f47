// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
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
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

namespace convolution {
namespace {

using labkit::ceil_div, labkit::kMaxGridY;

// TODO(step 2a): the weights' home: a __constant__ array of kMaxWeights floats, here in the
//   anonymous namespace so that it belongs to this file alone. Its size must be known when the
//   file is compiled, hence the largest filter's, not `size * size`.

[[maybe_unused]] __global__ void convolve_constant_kernel([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                                          [[maybe_unused]] int size, [[maybe_unused]] Border border) {
    // TODO(step 2c): steps 1a to 1c again, reading the weights from your __constant__ array.
    //   Think about it before you measure (handout, docs/labs/convolution.md): when a warp
    //   loads the weight of one tap, which addresses do its 32 lanes ask for, and what does the
    //   constant cache do with such a request?
}

}  // namespace

void set_weights_constant([[maybe_unused]] const float* weights, [[maybe_unused]] int size,
                          [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2b): copy the size x size weights into the __constant__ array with
    //   cudaMemcpyToSymbolAsync on ctx.stream, inside CUDA_CHECK. Pitfalls: the count is in
    //   bytes; a filter larger than the array would write past its end, so refuse one
    //   (std::invalid_argument). Why is an asynchronous copy on ctx.stream, with no
    //   synchronization, safe for the kernels launched after it?
    //   Then delete the throw.
    throw labkit::NotImplemented("set_weights_constant (02_constant.cu)");
}

void convolve_constant([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                       [[maybe_unused]] Border border, [[maybe_unused]] const Tuning& tuning,
                       [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2d): launch as in step 1d. Then delete the throw.
    throw labkit::NotImplemented("convolve_constant (02_constant.cu)");
}

}  // namespace convolution
