// Lab 2's contract with the harness: what goes in and out, the lab's own hard cases, how answers
// are compared, and the bytes each stage must move. Shared by the grader and the runner; the
// reference and the pictures (reference.cpp) are linked into the grader only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exercise.hpp"
#include "histogram_equalization.hpp"

namespace histogram_equalization {

using u8 = std::uint8_t;

struct LabCase {
    std::string name;
    labkit::GrayImage input;
    protocol::NoParams params;
};

struct HistogramEqualization : protocol::WithoutParams, protocol::GrayInSameSizeOut {
    static constexpr std::string_view name = "histogram_equalization";
    static constexpr std::string_view reference_name = "cpu-sequential";
    using In = u8;
    using Out = u8;

    // Uniform noise (no contention; at 8192^2 a 32-bit normalize wraps), one value everywhere
    // (all contention, and the single-valued rule), 90% one value, a ramp, low contrast.
    static constexpr labkit::Pattern patterns[] = {labkit::Pattern::random, labkit::Pattern::full,
                                                   labkit::Pattern::skewed, labkit::Pattern::gradient,
                                                   labkit::Pattern::low_contrast};
    // Above a megapixel: noise (where a 32-bit normalize wraps at 8192^2) and one value
    // everywhere (every pixel's atomic on one bin).
    static constexpr labkit::Pattern large_patterns[] = {labkit::Pattern::random, labkit::Pattern::full};
    static constexpr bool uses_photos = true;
    static constexpr bool luma_of_colour = true;  // `run` on a colour photo equalizes its luma, keeps its chroma
    static constexpr protocol::Comparison comparison = protocol::exact();

    // Timed on uniform noise and on the skewed image, where atomics on one bin serialize.
    static constexpr labkit::Pattern perf_patterns[] = {labkit::Pattern::random, labkit::Pattern::skewed};
    static constexpr protocol::PerfView perf_views[] = {
        {"Scan x block size, with the aggregated histogram (the report's table)", "gpu-03-*"},
        {"What each histogram step gains (Kogge-Stone scan, 256 threads)", "gpu-0?-*-ks-b256", "gpu-01-global-atomics-ks-b256"},
    };

    // The LUT depends on every pixel, so the image is read twice (histogram, then the map) and
    // written once: 3 B/px is the floor of any two-pass method.
    static constexpr double min_bytes_per_pixel = 3;
    static constexpr protocol::Stage stages[] = {{"histogram", 1}, {"scan", 0}, {"normalize", 0}, {"equalize", 2}};

    // The worked 8x8 example, and an image of two values (kit/contract.cpp).
    static std::vector<LabCase> lab_cases(std::uint64_t seed);

    // Grader only (reference.cpp).
    static void reference(View<const In> in, View<Out> out, const Params&);
    // The histogram and the CDF before | after, written beside the result as <stem>-histogram.png.
    static constexpr std::string_view picture_name = "histogram";
    static constexpr std::string_view picture_what = "the histogram and CDF, before | after";
    static labkit::GrayImage picture(View<const In> in, View<const Out> out, int);
    static labkit::GrayImage diff_background(View<const In> in, View<const Out>);
};

// The 8x8 example of the handout (Wikipedia, "Histogram equalization") and its published result.
inline constexpr int kExampleSide = 8;
extern const u8 kExampleInput[kExampleSide * kExampleSide];
extern const u8 kExampleOutput[kExampleSide * kExampleSide];

}  // namespace histogram_equalization
