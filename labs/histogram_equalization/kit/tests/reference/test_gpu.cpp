// Lab 2 on the GPU: every GPU variant of the solution's table against the reference, on the
// shared awkward sizes and the lab's own cases (the 8x8 example, contention), through the same
// harness the runner uses. Skipped (exit 77) when there is no CUDA device.
#include "cases.hpp"
#include "catch.hpp"
#include "compare.hpp"
#include "gpu_harness.hpp"
#include "tables.hpp"

using namespace histogram_equalization;
using labkit::GrayImage;

namespace {

std::string run_and_compare(const protocol::Variant<HistogramEqualization>& v, const GrayImage& in) {
    GrayImage want(in.width(), in.height());
    HistogramEqualization::reference(in.view(), want.view(), {});
    const protocol::NoParams params;
    runner::GpuHarness<HistogramEqualization> harness(in.width(), in.height(), {in.width(), in.height()});
    harness.load(in.view());
    harness.run(v, params);
    const auto got = harness.download();
    const auto m = protocol::compare<u8>(got, want.view(), protocol::exact());
    return (m.ok() ? "" : protocol::describe(m, got.pixels(), protocol::exact())) + harness.guard_report();
}

}  // namespace

TEST_CASE("every GPU variant matches the reference on awkward sizes", "[histogram_equalization][gpu]") {
    const auto [w, h] = GENERATE(from_range(protocol::quick_sizes()));
    const auto pattern = GENERATE(labkit::Pattern::random, labkit::Pattern::full, labkit::Pattern::low_contrast);
    const auto in = labkit::generate(pattern, w, h, 2026);
    for (const auto& v : variants()) {
        if (v.target() != protocol::Target::gpu) continue;
        CAPTURE(std::string(v.name), w, h, std::string(labkit::pattern_name(pattern)));
        CHECK(run_and_compare(v, in) == "");
    }
}

TEST_CASE("every GPU variant matches on the lab's own cases", "[histogram_equalization][gpu]") {
    for (const auto& c : HistogramEqualization::lab_cases(7)) {
        for (const auto& v : variants()) {
            if (v.target() != protocol::Target::gpu) continue;
            CAPTURE(std::string(v.name), c.name);
            CHECK(run_and_compare(v, c.input) == "");
        }
    }
}
