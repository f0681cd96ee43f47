// Lab 1 on the CPU: the baseline against the handout's worked example and the wrap-around
// contract, and the OpenMP solution against the baseline on awkward sizes and thread counts.
#include "cases.hpp"
#include "catch.hpp"
#include "contract.hpp"
#include "labkit/generators.hpp"

using labkit::HostImage;
using u32 = std::uint32_t;

namespace {
HostImage<u32> sequential(const labkit::GrayImage& in) {
    HostImage<u32> out(in.width(), in.height());
    integral_image::IntegralImage::reference(in.view(), out.view(), {});
    return out;
}
}  // namespace

TEST_CASE("the handout's 3x3 example", "[integral_image][cpu]") {
    labkit::GrayImage in(3, 3);
    for (int i = 0; i < 9; ++i) in.data()[i] = static_cast<std::uint8_t>(i);
    const auto out = sequential(in);
    const u32 want[9] = {0, 1, 3, 3, 8, 15, 9, 21, 36};
    for (int i = 0; i < 9; ++i) {
        CAPTURE(i % 3, i / 3);
        CHECK(out.data()[i] == want[i]);
    }
}

TEST_CASE("an 8192x8192 all-255 image wraps modulo 2^32, and rectangle sums stay exact", "[integral_image][cpu]") {
    constexpr int n = 8192;
    const auto out = sequential(labkit::generate(labkit::Pattern::full, n, n, 0));
    // 255 * 2^26 = 17112760320 = 3 * 2^32 + 4227858432.
    CHECK(out(n - 1, n - 1) == 4227858432u);
    // A 4000 x 4000 rectangle (255 * 16e6 = 4.08e9 < 2^32) read from four wrapped corners.
    const int x0 = 4000, y0 = 3000, x1 = x0 + 3999, y1 = y0 + 3999;
    const u32 sum = out(x1, y1) - out(x0 - 1, y1) - out(x1, y0 - 1) + out(x0 - 1, y0 - 1);
    CHECK(sum == 255u * 4000u * 4000u);
}

TEST_CASE("cpu-openmp matches cpu-sequential on awkward sizes and thread counts", "[integral_image][cpu]") {
    const auto [w, h] = GENERATE(from_range(protocol::quick_sizes()));
    const int threads = GENERATE(1, 2, 3, 7);
    const auto pattern = GENERATE(labkit::Pattern::random, labkit::Pattern::full);
    CAPTURE(w, h, threads, std::string(labkit::pattern_name(pattern)));
    const auto in = labkit::generate(pattern, w, h, 11);
    const auto want = sequential(in);
    HostImage<u32> got(w, h, 0xA5A5A5A5u);
    integral_image::cpu_openmp(in.view(), got.view(), threads);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (got(x, y) != want(x, y)) {
                CAPTURE(x, y, got(x, y), want(x, y));
                FAIL("first mismatch");
            }
}
