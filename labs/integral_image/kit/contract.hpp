// Lab 1's contract with the harness: its four exercises, what goes in and out, how answers are
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
using u64 = std::uint64_t;

// What every summed-area table exercise checks on: an 8-bit image in, the table out.
struct SatCases : protocol::WithoutParams, protocol::GrayInSameSizeOut {
    using In = u8;
    // All-255 gives the largest sums (and the wrap at 8192^2); zeros and the ramp catch offsets.
    static constexpr labkit::Pattern patterns[] = {labkit::Pattern::random, labkit::Pattern::zeros,
                                                   labkit::Pattern::full, labkit::Pattern::gradient};
    // Above a megapixel: noise, and all-255 for the largest sums (past 2^32 at 8192^2).
    static constexpr labkit::Pattern large_patterns[] = {labkit::Pattern::random, labkit::Pattern::full};
    static constexpr bool uses_photos = true;
    static constexpr protocol::Comparison comparison = protocol::exact();
    static constexpr int kPictureRadius = 8;  // a blur that shows at photo sizes (a few hundred pixels)
    // A diff image is easiest to read over the input itself (grader only, reference.cpp).
    static labkit::GrayImage input_background(View<const In> in);
};

// The integral image: uint8 in, the inclusive uint32 summed-area table out (modulo 2^32).
struct IntegralImage : SatCases {
    static constexpr std::string_view name = "integral_image";
    static constexpr std::string_view reference_name = "cpu-sequential";
    using Out = u32;

    static constexpr double min_bytes_per_pixel = sizeof(In) + sizeof(Out);  // read the image, write the table
    // The four passes of the GPU pipeline: each reads its input once and writes its output once.
    static constexpr protocol::Stage stages[] = {{"scan rows", sizeof(In) + sizeof(Out)},
                                               {"transpose", 2 * sizeof(Out)},
                                               {"scan rows", 2 * sizeof(Out)},
                                               {"transpose back", 2 * sizeof(Out)}};

    // Grader only (reference.cpp).
    static void reference(View<const In> in, View<Out> out, const Params&);
    // The input beside its box blur of radius r, computed from the table: four lookups a pixel.
    static labkit::GrayImage picture(View<const In> in, View<const Out> table, int radius);
    static labkit::GrayImage diff_background(View<const In> in, View<const Out>) { return input_background(in); }
};

// The 64-bit table (expert tier): the same sums, exact, for images whose sums pass 2^32.
struct IntegralImage64 : SatCases {
    static constexpr std::string_view name = "integral_image_64";
    static constexpr std::string_view reference_name = "cpu-sequential-64";
    using Out = u64;

    static constexpr double min_bytes_per_pixel = sizeof(In) + sizeof(Out);
    static constexpr std::array<protocol::Stage, 0> stages{};  // one call, timed whole

    // Grader only (reference.cpp).
    static void reference(View<const In> in, View<Out> out, const Params&);
    static labkit::GrayImage picture(View<const In> in, View<const Out> table, int radius);
    static labkit::GrayImage diff_background(View<const In> in, View<const Out>) { return input_background(in); }
};

// The exclusive, zero-padded layout of OpenCV's cv::integral and NPP's nppiIntegral (expert
// tier): (W + 1) x (H + 1) uint32, a row and a column of zeros, then the inclusive table.
struct IntegralImageExclusive : SatCases {
    static constexpr std::string_view name = "integral_image_exclusive";
    static constexpr std::string_view reference_name = "cpu-sequential-exclusive";
    using Out = u32;

    static std::pair<int, int> output_size(int width, int height, const Params&) { return {width + 1, height + 1}; }
    static constexpr double min_bytes_per_pixel = sizeof(In) + sizeof(Out);  // the padding aside
    static constexpr std::array<protocol::Stage, 0> stages{};

    // Grader only (reference.cpp).
    static void reference(View<const In> in, View<Out> out, const Params&);
    static labkit::GrayImage picture(View<const In> in, View<const Out> table, int radius);
    // (The diff image's background is the table itself, normalized: it is not the input's size.)
};

// The transpose exercise: the pipeline's passes 2 and 4 on their own, uint32 W x H -> H x W.
struct Transpose : protocol::WithoutParams {
    static constexpr std::string_view name = "transpose";
    static constexpr std::string_view reference_name = "transpose-cpu";
    using In = u32;
    using Out = u32;

    static std::pair<int, int> output_size(int width, int height, const Params&) { return {height, width}; }
    static labkit::HostImage<u32> make_input(labkit::Pattern p, int width, int height, std::uint64_t seed);
    static constexpr labkit::Pattern patterns[] = {labkit::Pattern::random};  // every value distinct
    static constexpr bool uses_photos = false;
    static labkit::HostImage<u32> from_photo(const labkit::GrayImage& gray);
    static constexpr protocol::Comparison comparison = protocol::exact();

    static constexpr double min_bytes_per_pixel = sizeof(In) + sizeof(Out);
    static constexpr std::array<protocol::Stage, 0> stages{};  // one kernel

    // Grader only (reference.cpp).
    static void reference(View<const In> in, View<Out> out, const Params&);
    static labkit::GrayImage picture(View<const In> in, View<const Out> out, int);
};

}  // namespace integral_image
