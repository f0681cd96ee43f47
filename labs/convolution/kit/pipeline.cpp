#include "pipeline.hpp"

#include "labkit/cuda_check.hpp"
#include "labkit/image_pool.hpp"

namespace convolution {
namespace {
enum class Scratch { weights };
enum class Intermediate { rows };
}  // namespace

Launch global_memory(Tuning tuning) {
    return {[](const Params& p, GpuContext& ctx) {
                const auto& w = p.filter.weights;
                float* device = ctx.workspace->get<float>(Scratch::weights, w.size());
                CUDA_CHECK(cudaMemcpyAsync(device, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice, ctx.stream));
            },
            [tuning](Input in, Output out, const Params& p, GpuContext& ctx) {
                const float* device = ctx.workspace->get<float>(Scratch::weights, p.filter.weights.size());
                convolve_global(in, out, device, p.filter.size, p.border, tuning, ctx);
            }};
}

Launch constant_memory(SetWeightsFn set_weights, ConvolveFn convolve, Tuning tuning) {
    return {[set_weights](const Params& p, GpuContext& ctx) { set_weights(p.filter.weights.data(), p.filter.size, ctx); },
            [convolve, tuning](Input in, Output out, const Params& p, GpuContext& ctx) {
                convolve(in, out, p.filter.size, p.border, tuning, ctx);
            }};
}

Launch separable(Tuning tuning) {
    return {[](const Params& p, GpuContext& ctx) {
                set_weights_separable(p.filter.row.data(), p.filter.column.data(), p.filter.size, ctx);
            },
            [tuning](Input in, Output out, const Params& p, GpuContext& ctx) {
                const auto& rows = ctx.images->get<float>(Intermediate::rows, in.width, in.height, "the row pass", ctx.stream);
                convolve_rows(in, rows.view(), p.filter.size, p.border, tuning, ctx);
                convolve_columns(rows.cview(), out, p.filter.size, p.border, tuning, ctx);
            }};
}

Launch expert() {
    return {[](const Params& p, GpuContext& ctx) {
                const bool factors = p.filter.separable();
                set_weights_expert(p.filter.weights.data(), factors ? p.filter.row.data() : nullptr,
                                   factors ? p.filter.column.data() : nullptr, p.filter.size, ctx);
            },
            [](Input in, Output out, const Params& p, GpuContext& ctx) {
                convolve_expert(in, out, p.filter.size, p.filter.separable(), p.border, ctx);
            }};
}

}  // namespace convolution
