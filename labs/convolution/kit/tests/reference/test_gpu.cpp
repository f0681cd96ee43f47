// Lab 3 on the GPU: every GPU row of the solution's table, on every lab case it applies to (each
// filter, border and k, images smaller than the filter) and on the shared awkward sizes, through
// the harness the runner uses, judged with the lab's tolerance. Skipped (exit 77) without a device.
#include "cases.hpp"
#include "catch.hpp"
#include "compare.hpp"
#include "gpu_harness.hpp"
#include "tables.hpp"

using namespace convolution;

namespace {

// The variant's answer, then the first mismatch and any stray write ("" when all is well).
std::string verdict(const protocol::Variant<Convolution>& v, const LabCase& c) {
    FloatImage want(c.input.width(), c.input.height());
    Convolution::reference(c.input.view(), want.view(), c.params);
    runner::GpuHarness<Convolution> gpu(c.input.width(), c.input.height(), {want.width(), want.height()});
    gpu.load(c.input.view());
    gpu.run(v, c.params);
    const auto got = gpu.download();  // a view of the harness's pinned buffer
    const protocol::Comparison tolerance = Convolution::comparison_for(c.params);
    const auto m = protocol::compare<float>(got, want.view(), tolerance);
    std::string problems = gpu.guard_report();
    if (!m.ok()) problems += protocol::describe(m, got.pixels(), tolerance);
    return problems;
}

std::vector<LabCase> shared_cases() {
    std::vector<LabCase> cases;
    for (const auto& [w, h] : protocol::quick_sizes())
        cases.push_back({protocol::size_name({w, h}), Convolution::make_input(labkit::Pattern::checkerboard, w, h, 0),
                         Convolution::default_params()});
    return cases;
}

}  // namespace

TEST_CASE("every GPU variant matches the reference on every case it applies to", "[convolution][gpu]") {
    auto cases = Convolution::lab_cases(2026);
    for (auto& c : shared_cases()) cases.push_back(std::move(c));
    for (const auto& v : variants()) {
        if (v.target() != protocol::Target::gpu) continue;
        int checked = 0;
        for (const auto& c : cases) {
            if (!Convolution::applies(v.name, c.params)) continue;
            CAPTURE(std::string(v.name), c.name);
            CHECK(verdict(v, c) == "");
            ++checked;
        }
        CHECK(checked > 0);
    }
}
