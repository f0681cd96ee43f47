// Lab 2 on the CPU: the reference against the handout's worked example (and floor against
// round), the single-valued image, the 64-bit arithmetic, and cpu-openmp against the reference.
#include <algorithm>

#include "cases.hpp"
#include "catch.hpp"
#include "contract.hpp"
#include "labkit/generators.hpp"

using namespace histogram_equalization;
using labkit::GrayImage;

namespace {
GrayImage reference(const GrayImage& in) {
    GrayImage out(in.width(), in.height());
    HistogramEqualization::reference(in.view(), out.view(), {});
    return out;
}
}  // namespace

TEST_CASE("the handout's 8x8 example maps exactly to the published image", "[histogram_equalization][cpu]") {
    GrayImage in(kExampleSide, kExampleSide);
    std::copy(std::begin(kExampleInput), std::end(kExampleInput), in.data());
    const auto out = reference(in);
    for (int i = 0; i < kExampleSide * kExampleSide; ++i) {
        CAPTURE(i % kExampleSide, i / kExampleSide);
        CHECK(out.data()[i] == kExampleOutput[i]);
    }
    // The floor the report writes in its formula gets 31 of the 64 pixels wrong: rounding is
    // what reproduces the example.
    std::uint64_t cdf[kLevels] = {};
    for (const auto v : kExampleInput) ++cdf[v];
    for (int v = 1; v < kLevels; ++v) cdf[v] += cdf[v - 1];
    const std::uint64_t cdf_min = *std::find_if(std::begin(cdf), std::end(cdf), [](auto c) { return c != 0; });
    const std::uint64_t span = kExampleSide * kExampleSide - cdf_min;
    int floor_wrong = 0;
    for (int i = 0; i < kExampleSide * kExampleSide; ++i)
        floor_wrong += (cdf[kExampleInput[i]] - cdf_min) * (kLevels - 1) / span != kExampleOutput[i];
    CHECK(floor_wrong == 31);
}

TEST_CASE("a single-valued image is its own output", "[histogram_equalization][cpu]") {
    const GrayImage in(31, 33, 77);
    const auto out = reference(in);
    CHECK(std::all_of(out.data(), out.data() + out.pixels(), [](auto v) { return v == 77; }));
}

TEST_CASE("8192x8192: the LUT needs 64-bit arithmetic", "[histogram_equalization][cpu]") {
    constexpr int kSide = 8192;
    const auto in = labkit::generate(labkit::Pattern::gradient, kSide, kSide, 0);
    const auto out = reference(in);
    // N * 255 passes 2^32 here: a 32-bit product would wrap and the brightest value would not map to 255.
    CHECK(static_cast<std::uint64_t>(kSide) * kSide * (kLevels - 1) > (std::uint64_t{1} << 32));
    const auto brightest = std::max_element(in.data(), in.data() + in.pixels()) - in.data();
    CHECK(out.data()[brightest] == kLevels - 1);
}

TEST_CASE("cpu-openmp matches the reference on awkward sizes and thread counts", "[histogram_equalization][cpu]") {
    const auto [w, h] = GENERATE(from_range(protocol::quick_sizes()));
    const int threads = GENERATE(1, 2, 3, 7);
    const auto pattern = GENERATE(labkit::Pattern::random, labkit::Pattern::full, labkit::Pattern::low_contrast);
    CAPTURE(w, h, threads, std::string(labkit::pattern_name(pattern)));
    const auto in = labkit::generate(pattern, w, h, 11);
    const auto want = reference(in);
    GrayImage got(w, h, 0xA5);
    cpu_openmp(in.view(), got.view(), threads);
    CHECK(std::equal(got.data(), got.data() + got.pixels(), want.data()));
}
