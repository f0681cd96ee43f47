// The starter: every student function throws NotImplemented (the grader's TODO), none crashes,
// and none touches the GPU before it throws, so this runs without a device.
#include "catch.hpp"
#include "convolution.hpp"
#include "labkit/errors.hpp"

using namespace convolution;

TEST_CASE("every student function of Lab 3's starter is a TODO", "[convolution][starter]") {
    float pixel = 1, result = 0;
    const float weight = 1;
    const Input in{&pixel, 1, 1, 1};
    const Output out{&result, 1, 1, 1};
    for (const Schedule s : {Schedule::static_chunks, Schedule::dynamic_chunks})
        CHECK_THROWS_AS(cpu_openmp(in, out, &weight, 1, Border::zero, 1, s), labkit::NotImplemented);
    CHECK_THROWS_AS(cpu_openmp_expert(in, out, &weight, &weight, &weight, 1, Border::zero, 1), labkit::NotImplemented);
#if LABKIT_HAVE_CUDA
    GpuContext ctx{};
    const Tuning t{};
    CHECK_THROWS_AS(convolve_global(in, out, &weight, 1, Border::zero, t, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(set_weights_constant(&weight, 1, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(set_weights_tiled(&weight, 1, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(set_weights_separable(&weight, &weight, 1, ctx), labkit::NotImplemented);
    for (const auto convolve : {convolve_constant, convolve_tiled, convolve_rows, convolve_columns})
        CHECK_THROWS_AS(convolve(in, out, 1, Border::zero, t, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(set_weights_expert(&weight, &weight, &weight, 1, ctx), labkit::NotImplemented);
    CHECK_THROWS_AS(convolve_expert(in, out, 1, true, Border::zero, ctx), labkit::NotImplemented);
#endif
}
