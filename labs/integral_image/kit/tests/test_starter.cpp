// The starter: every student function throws NotImplemented (the grader's TODO), none crashes,
// and none touches the GPU before it throws, so this runs without a device.
#include "catch.hpp"
#include "integral_image.hpp"
#include "labkit/errors.hpp"

using namespace integral_image;
using u8 = std::uint8_t;
using u32 = std::uint32_t;

TEST_CASE("every student function of the starter is a TODO", "[integral_image][starter]") {
    u8 pixel = 1;
    u32 out = 0;
    const View<const u8> in8{&pixel, 1, 1, 1};
    const Output o{&out, 1, 1, 1};
    CHECK_THROWS_AS(cpu_openmp(in8, o, 1), labkit::NotImplemented);
#if LABKIT_HAVE_CUDA
    const View<const u32> in32{&out, 1, 1, 1};
    GpuContext ctx{};
    const Tuning t{};
    CHECK_THROWS_AS(scan_rows_naive(in8, o, t, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(scan_rows_naive(in32, o, t, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(transpose_naive(in32, o, t, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(transpose_tiled(in32, o, t, ctx), labkit::NotImplemented);
    for (const int section : {256, 512, 1024}) {
        const Tuning s{section, t.block_rows};
        CAPTURE(section);
        CHECK_THROWS_AS(scan_rows_kogge_stone(in8, o, s, ctx), labkit::NotImplemented);
        CHECK_THROWS_AS(scan_rows_kogge_stone(in32, o, s, ctx), labkit::NotImplemented);
        CHECK_THROWS_AS(scan_rows_brent_kung(in8, o, s, ctx), labkit::NotImplemented);
        CHECK_THROWS_AS(scan_rows_brent_kung(in32, o, s, ctx), labkit::NotImplemented);
        CHECK_THROWS_AS(scan_rows_coarsened(in8, o, s, ctx), labkit::NotImplemented);
        CHECK_THROWS_AS(scan_rows_coarsened(in32, o, s, ctx), labkit::NotImplemented);
        CHECK_THROWS_AS(scan_rows_single_pass(in8, o, s, ctx), labkit::NotImplemented);
        CHECK_THROWS_AS(scan_rows_single_pass(in32, o, s, ctx), labkit::NotImplemented);
    }
    CHECK_THROWS_AS(scan_block_sums(View<u32>{&out, 1, 1, 1}, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(add_block_sums(in32, o, 256, ctx), labkit::NotImplemented);
#endif
}
