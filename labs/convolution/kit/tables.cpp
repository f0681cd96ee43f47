// The variant table of Lab 3: OpenMP with both schedules and its expert tier, then every memory
// variant with three block shapes (16x16 as in the report this lab comes from, 32x8, 32x32).
// Adding a configuration is adding a line here.
#include "tables.hpp"

#include <vector>

#include "pipeline.hpp"

namespace convolution {
namespace {

CvVariant::CpuFn openmp(Schedule schedule) {
    return [schedule](Input in, Output out, const Params& p, int threads) {
        cpu_openmp(in, out, p.filter.weights.data(), p.filter.size, p.border, threads, schedule);
    };
}
// The expert tier gets what 05 gets: the weights, and a separable filter's factors (nullptr otherwise).
CvVariant::CpuFn openmp_expert() {
    return [](Input in, Output out, const Params& p, int threads) {
        const bool factors = p.filter.separable();
        cpu_openmp_expert(in, out, p.filter.weights.data(), factors ? p.filter.row.data() : nullptr,
                          factors ? p.filter.column.data() : nullptr, p.filter.size, p.border, threads);
    };
}

#if LABKIT_HAVE_CUDA
CvVariant gpu(std::string_view name, std::string_view summary, Launch launch) {
    return {name, summary, {}, std::move(launch.gpu), std::move(launch.setup)};
}

constexpr Tuning k16x16{16, 16}, k32x8{32, 8}, k32x32{32, 32};
// What each step does, for the tables and `list`.
constexpr std::string_view kGlobal = "one thread per pixel; image and weights from global memory",
                           kConstant = "as 01, the weights in __constant__ memory (one broadcast per warp)",
                           kTiled = "input tile + halo staged in shared memory once per block; constant weights",
                           kUnrolled = "experiment: as 03, compiled for each k (a template argument): taps unrolled, constant weight addresses",
                           kSeparable = "separable filters: a row pass, then a column pass, each tiled in shared memory";
#endif

const std::vector<CvVariant>& table() {
    static const std::vector<CvVariant> rows = {
        {"cpu-openmp-static", "collapse(2), schedule(static)", openmp(Schedule::static_chunks), {}},
        {"cpu-openmp-dynamic", "collapse(2), schedule(dynamic)", openmp(Schedule::dynamic_chunks), {}},
        {kCpuExpertVariant, "challenge: bands of rows, vectorized tap loops, separable filters in two passes", openmp_expert(), {}},
#if LABKIT_HAVE_CUDA
        gpu("gpu-01-global-b16x16", kGlobal, global_memory(k16x16)),
        gpu("gpu-01-global-b32x8", kGlobal, global_memory(k32x8)),
        gpu("gpu-01-global-b32x32", kGlobal, global_memory(k32x32)),
        gpu("gpu-02-constant-b16x16", kConstant, constant_memory(set_weights_constant, convolve_constant, k16x16)),
        gpu("gpu-02-constant-b32x8", kConstant, constant_memory(set_weights_constant, convolve_constant, k32x8)),
        gpu("gpu-02-constant-b32x32", kConstant, constant_memory(set_weights_constant, convolve_constant, k32x32)),
        gpu("gpu-03-tiled-b16x16", kTiled, constant_memory(set_weights_tiled, convolve_tiled, k16x16)),
        gpu("gpu-03-tiled-b32x8", kTiled, constant_memory(set_weights_tiled, convolve_tiled, k32x8)),
        gpu("gpu-03-tiled-b32x32", kTiled, constant_memory(set_weights_tiled, convolve_tiled, k32x32)),
        gpu("gpu-03-unrolled-b16x16", kUnrolled, constant_memory(set_weights_tiled, convolve_tiled_unrolled, k16x16)),
        gpu("gpu-03-unrolled-b32x8", kUnrolled, constant_memory(set_weights_tiled, convolve_tiled_unrolled, k32x8)),
        gpu("gpu-03-unrolled-b32x32", kUnrolled, constant_memory(set_weights_tiled, convolve_tiled_unrolled, k32x32)),
        gpu("gpu-04-separable-b16x16", kSeparable, separable(k16x16)),
        gpu("gpu-04-separable-b32x8", kSeparable, separable(k32x8)),
        gpu("gpu-04-separable-b32x32", kSeparable, separable(k32x32)),
        gpu(kExpertVariant, "challenge: one kernel for every filter, no intermediate image, near the roofs", expert()),
#endif
    };
    return rows;
}

}  // namespace

std::span<const CvVariant> variants() { return table(); }

}  // namespace convolution
