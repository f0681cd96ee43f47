// The variant table of Lab 2: the OpenMP version, then every histogram kernel with every scan
// and both block sizes, then the expert tier. Adding a configuration is adding a line here.
#include "tables.hpp"

#include <vector>

#include "pipeline.hpp"

namespace histogram_equalization {
namespace {

using HeVariant = protocol::Variant<HistogramEqualization>;

HeVariant::CpuFn openmp() {
    return [](Input in, Output out, const protocol::NoParams&, int threads) { cpu_openmp(in, out, threads); };
}
HeVariant::CpuFn openmp_expert() {
    return [](Input in, Output out, const protocol::NoParams&, int threads) { cpu_openmp_expert(in, out, threads); };
}

#if LABKIT_HAVE_CUDA
HeVariant::GpuFn pipeline(HistogramFn histogram, ScanFn scan, int block_size) {
    const Pipeline p{histogram, scan, {block_size}};
    return [p](Input in, Output out, const protocol::NoParams&, GpuContext& ctx) { run_pipeline(p, in, out, ctx); };
}
// 06_expert.cu's counters: 64 copies of the 256 bins per block, one per lane and parity (a
// T4's whole 64 KB; tests/resource_fit_selftest.py checks it against what the launch asks).
constexpr std::size_t kExpertCounterBytes = 64 * 1024;
HeVariant::GpuFn expert() {
    return [](Input in, Output out, const protocol::NoParams&, GpuContext& ctx) { histogram_equalization_expert(in, out, ctx); };
}

constexpr const char* kGlobal = "global atomics, one per pixel; scan; LUT; map";
constexpr const char* kPadded = "experiment: global atomics, each bin on a 128-byte line of its own; scan; LUT; map";
constexpr const char* kPrivate = "per-block shared histograms merged into global; scan; LUT; map";
constexpr const char* kAggregated = "shared histograms, runs aggregated, one wave of blocks; scan; LUT; map";
constexpr const char* kWarpAggregated = "challenge: shared histograms, equal values aggregated across the warp, one wave; scan; LUT; map";
#endif

const std::vector<HeVariant>& table() {
    static const std::vector<HeVariant> rows = {
        {"cpu-openmp", "private histograms per thread, merged; parallel map", openmp(), {}},
        {"cpu-openmp-expert", "challenge: as fast as memory allows, on noise and on a skewed image", openmp_expert(), {}},
#if LABKIT_HAVE_CUDA
        {"gpu-01-global-atomics-ks-b256", kGlobal, {}, pipeline(histogram_global_atomics, scan_kogge_stone, 256)},
        {"gpu-01-global-atomics-ks-b512", kGlobal, {}, pipeline(histogram_global_atomics, scan_kogge_stone, 512)},
        {"gpu-01-global-atomics-ksdb-b256", kGlobal, {}, pipeline(histogram_global_atomics, scan_kogge_stone_double_buffer, 256)},
        {"gpu-01-global-atomics-ksdb-b512", kGlobal, {}, pipeline(histogram_global_atomics, scan_kogge_stone_double_buffer, 512)},
        {"gpu-01-global-atomics-bk-b256", kGlobal, {}, pipeline(histogram_global_atomics, scan_brent_kung, 256)},
        {"gpu-01-global-atomics-bk-b512", kGlobal, {}, pipeline(histogram_global_atomics, scan_brent_kung, 512)},
        {"gpu-01-padded-atomics-ks-b256", kPadded, {}, pipeline(histogram_global_atomics_padded, scan_kogge_stone, 256)},
        {"gpu-01-padded-atomics-ks-b512", kPadded, {}, pipeline(histogram_global_atomics_padded, scan_kogge_stone, 512)},
        {"gpu-02-privatized-ks-b256", kPrivate, {}, pipeline(histogram_privatized, scan_kogge_stone, 256)},
        {"gpu-02-privatized-ks-b512", kPrivate, {}, pipeline(histogram_privatized, scan_kogge_stone, 512)},
        {"gpu-02-privatized-ksdb-b256", kPrivate, {}, pipeline(histogram_privatized, scan_kogge_stone_double_buffer, 256)},
        {"gpu-02-privatized-ksdb-b512", kPrivate, {}, pipeline(histogram_privatized, scan_kogge_stone_double_buffer, 512)},
        {"gpu-02-privatized-bk-b256", kPrivate, {}, pipeline(histogram_privatized, scan_brent_kung, 256)},
        {"gpu-02-privatized-bk-b512", kPrivate, {}, pipeline(histogram_privatized, scan_brent_kung, 512)},
        {"gpu-03-aggregated-ks-b256", kAggregated, {}, pipeline(histogram_aggregated, scan_kogge_stone, 256)},
        {"gpu-03-aggregated-ks-b512", kAggregated, {}, pipeline(histogram_aggregated, scan_kogge_stone, 512)},
        {"gpu-03-aggregated-ksdb-b256", kAggregated, {}, pipeline(histogram_aggregated, scan_kogge_stone_double_buffer, 256)},
        {"gpu-03-aggregated-ksdb-b512", kAggregated, {}, pipeline(histogram_aggregated, scan_kogge_stone_double_buffer, 512)},
        {"gpu-03-aggregated-bk-b256", kAggregated, {}, pipeline(histogram_aggregated, scan_brent_kung, 256)},
        {"gpu-03-aggregated-bk-b512", kAggregated, {}, pipeline(histogram_aggregated, scan_brent_kung, 512)},
        {"gpu-03-warp-aggregated-ks-b256", kWarpAggregated, {}, pipeline(histogram_warp_aggregated, scan_kogge_stone, 256)},
        {"gpu-03-warp-aggregated-ks-b512", kWarpAggregated, {}, pipeline(histogram_warp_aggregated, scan_kogge_stone, 512)},
        {"gpu-04-expert", "challenge: the whole equalization near the 3 B/px floor, on noise and on skewed images", {}, expert(),
         {}, protocol::needs_shared<protocol::NoParams>(kExpertCounterBytes)},
#endif
    };
    return rows;
}

}  // namespace

std::span<const HeVariant> variants() { return table(); }

}  // namespace histogram_equalization
