// Lab 1's contract with the harness: its two exercises, what goes in and out, how answers are
// compared, and the bytes each must move. Shared by the grader and the runner; the reference and
// the pictures (reference.cpp) are linked into the grader only.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "exercise.hpp"
#include "integral_image.hpp"

namespace integral_image {

using u8 = std::uint8_t;
using u32 = std::uint32_t;

// The integral image: uint8 in, the inclusive uint32 summed-area table out (modulo 2^32).
struct IntegralImage : grader::WithoutParams, grader::GrayInSameSizeOut {
    static constexpr std::string_view name = "integral_image";
    static constexpr std::string_view reference_name = "cpu-sequential";
    using In = u8;
    using Out = u32;

    // All-255 gives the largest sums (and the wrap at 8192^2); zeros and the ramp catch offsets.
    static constexpr labkit::Pattern patterns[] = {labkit::Pattern::random, labkit::Pattern::zeros,
                                                   labkit::Pattern::full, labkit::Pattern::gradient};
    // Above a megapixel: noise, and all-255 for the largest sums and the wrap at 8192^2.
    static constexpr labkit::Pattern large_patterns[] = {labkit::Pattern::random, labkit::Pattern::full};
    static constexpr bool uses_photos = true;
    static constexpr grader::Comparison comparison = grader::exact();

    static constexpr double min_bytes_per_pixel = sizeof(In) + sizeof(Out);  // read the image, write the table
    // The four passes of the GPU pipeline: each reads its input once and writes its output once.
    static constexpr grader::Stage stages[] = {{"scan rows", sizeof(In) + sizeof(Out)},
                                               {"transpose", 2 * sizeof(Out)},
                                               {"scan rows", 2 * sizeof(Out)},
                                               {"transpose back", 2 * sizeof(Out)}};

    // Grader only (reference.cpp).
    static constexpr int kPictureRadius = 8;  // a blur that shows at photo sizes (a few hundred pixels)
    static void reference(View<const In> in, View<Out> out, const Params&);
    // The input beside its box blur of radius r, computed from the table: four lookups a pixel.
    static labkit::GrayImage picture(View<const In> in, View<const Out> table, int radius);
    static labkit::GrayImage diff_background(View<const In> in, View<const Out>);
};

// The transpose exercise: the pipeline's passes 2 and 4 on their own, uint32 W x H -> H x W.
struct Transpose : grader::WithoutParams {
    static constexpr std::string_view name = "transpose";
    static constexpr std::string_view reference_name = "transpose-cpu";
    using In = u32;
    using Out = u32;

    static std::pair<int, int> output_size(int width, int height, const Params&) { return {height, width}; }
    static labkit::HostImage<u32> make_input(labkit::Pattern p, int width, int height, std::uint64_t seed);
    static constexpr labkit::Pattern patterns[] = {labkit::Pattern::random};  // every value distinct
    static constexpr bool uses_photos = false;
    static labkit::HostImage<u32> from_photo(const labkit::GrayImage& gray);
    static constexpr grader::Comparison comparison = grader::exact();

    static constexpr double min_bytes_per_pixel = sizeof(In) + sizeof(Out);
    static constexpr std::array<grader::Stage, 0> stages{};  // one kernel

    // Grader only (reference.cpp).
    static void reference(View<const In> in, View<Out> out, const Params&);
    static labkit::GrayImage picture(View<const In> in, View<const Out> out, int);
};

}  // namespace integral_image
