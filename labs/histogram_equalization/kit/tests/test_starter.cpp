// The starter: every student function throws NotImplemented (the grader's TODO), none crashes,
// and none touches the GPU before it throws, so this runs without a device.
#include "catch.hpp"
#include "histogram_equalization.hpp"
#include "labkit/errors.hpp"

using namespace histogram_equalization;

TEST_CASE("every student function of the starter is a TODO", "[histogram_equalization][starter]") {
    std::uint8_t pixel = 1, mapped = 0;
    const Input in{&pixel, 1, 1, 1};
    const Output out{&mapped, 1, 1, 1};
    CHECK_THROWS_AS(cpu_openmp(in, out, 1), labkit::NotImplemented);
    CHECK_THROWS_AS(cpu_openmp_expert(in, out, 1), labkit::NotImplemented);
#if LABKIT_HAVE_CUDA
    GpuContext ctx{};
    const Tuning t{};
    for (const HistogramFn h : {histogram_global_atomics, histogram_privatized, histogram_aggregated})
        CHECK_THROWS_AS(h(in, nullptr, t, ctx), labkit::NotImplemented);
    for (const ScanFn s : {scan_kogge_stone, scan_kogge_stone_double_buffer, scan_brent_kung})
        CHECK_THROWS_AS(s(nullptr, nullptr, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(normalize(nullptr, nullptr, 1, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(equalize(in, out, nullptr, t, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(histogram_equalization_expert(in, out, ctx), labkit::NotImplemented);
#endif
}
