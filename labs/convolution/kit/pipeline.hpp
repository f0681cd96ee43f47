// How the kit calls the student's GPU functions: what each variant uploads once for a filter (its
// setup, outside the kernel-only timing) and what it launches per image. Runner side only.
#pragma once

#include "contract.hpp"

namespace convolution {

using CvVariant = protocol::Variant<Convolution>;

// The two halves of a GPU row of the table.
struct Launch {
    CvVariant::SetupFn setup;
    CvVariant::GpuFn gpu;
};

using SetWeightsFn = void (*)(const float* weights, int size, GpuContext& ctx);
using ConvolveFn = void (*)(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx);

#if LABKIT_HAVE_CUDA
// 01: the weights copied into a device buffer of the workspace.
Launch global_memory(Tuning tuning);
// 02 and 03: the weights handed to the file's set_weights function (its __constant__ array).
Launch constant_memory(SetWeightsFn set_weights, ConvolveFn convolve, Tuning tuning);
// 04: the 1D factors to set_weights_separable; a row pass into an intermediate image of the pool
// (poisoned and guard-checked like the output), then the column pass.
Launch separable(Tuning tuning);
// 05: all the weights (and a separable filter's factors) to set_weights_expert, then one call of
// convolve_expert: no pipeline, no intermediate image.
Launch expert();
#endif

}  // namespace convolution
