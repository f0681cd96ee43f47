#include "pipeline.hpp"

#include "labkit/image_pool.hpp"

namespace integral_image {
namespace {
enum class Intermediate { rows, flipped, columns };
}

void run_pipeline(const Pipeline& p, View<const std::uint8_t> in, Output out, GpuContext& ctx) {
    const int w = in.width, h = in.height;
    auto& pool = *ctx.images;
    // snippet: stage
    const auto& rows = pool.get<std::uint32_t>(Intermediate::rows, w, h, "pass 1 (scan rows)", ctx.stream);
    const auto& flipped = pool.get<std::uint32_t>(Intermediate::flipped, h, w, "pass 2 (transpose)", ctx.stream);
    const auto& columns = pool.get<std::uint32_t>(Intermediate::columns, h, w, "pass 3 (scan rows)", ctx.stream);
    p.scan_first(in, rows.view(), p.tuning, ctx);
    labkit::end_stage(ctx);
    // snippet: end
    p.transpose(rows.cview(), flipped.view(), p.tuning, ctx);
    labkit::end_stage(ctx);
    p.scan_second(flipped.cview(), columns.view(), p.tuning, ctx);
    labkit::end_stage(ctx);
    p.transpose(columns.cview(), out, p.tuning, ctx);
    labkit::end_stage(ctx);
}

}  // namespace integral_image
