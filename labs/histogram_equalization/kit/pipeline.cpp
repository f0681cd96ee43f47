#include "pipeline.hpp"

#include "labkit/cuda_check.hpp"
#include "labkit/image_pool.hpp"

namespace histogram_equalization {

void run_pipeline(const Pipeline& p, Input in, Output out, GpuContext& ctx) {
    auto* hist = ctx.workspace->get<std::uint32_t>(PipelineScratch::histogram, kLevels);
    auto* cdf = ctx.workspace->get<std::uint32_t>(PipelineScratch::cdf, kLevels);
    auto* lut = ctx.workspace->get<std::uint8_t>(PipelineScratch::lut, kLevels);
    // The workspace keeps the last call's counts: the histogram starts from zero every time.
    CUDA_CHECK(cudaMemsetAsync(hist, 0, kLevels * sizeof(std::uint32_t), ctx.stream));
    p.histogram(in, hist, p.tuning, ctx);
    labkit::end_stage(ctx);
    p.scan(hist, cdf, ctx);
    labkit::end_stage(ctx);
    normalize(cdf, lut, static_cast<std::uint64_t>(in.width) * in.height, ctx);
    labkit::end_stage(ctx);
    equalize(in, out, lut, p.tuning, ctx);
    labkit::end_stage(ctx);
}

}  // namespace histogram_equalization
