// What a lab tells the harness about one exercise, shared by the grader and the runner.
//
// An exercise is one variant table plus its contract. A contract is a struct C with:
//   name, reference_name           the exercise's name, and the name its reference has in tables
//   In, Out, Params                pixel types and run-time parameters (grader::NoParams if none)
//   output_size(w, h, params)      the output's width and height
//   make_input(pattern, w, h, seed)  a test image of In for a shared pattern (labkit::Pattern)
//   patterns, uses_photos          which shared patterns the cases use; whether photos are cases
//   from_photo(gray)               a photo as an input image (for cases and `run`)
//   comparison                     grader::exact() or grader::within(abs, rel)
//   min_bytes_per_pixel            the traffic floor: read the input once, write the output once
//   stages                         named stages of a pipeline and the bytes each must move
//   params_text / parse_params     Params to and from one line of text (the case files carry it)
// and, in a file only the grader links (the runner never sees them):
//   reference(in, out, params)     the sequential reference
//   picture(in, out, option)       a gray picture of a case and its output, for `run` (option: the
//                                  lab's picture option, LabDescription::picture_option)
//   lab_cases(seed)                optional: the lab's own cases beyond the shared ones
// and, optional on both sides:
//   perf_patterns                  the shared patterns the timings use (default: random); each
//                                  gets its own tables, e.g. uniform noise and a skewed image
//   perf_views                     named subsets of the variants, each shown as one more table:
//                                  rows the sizes, columns the variants (grader::PerfView)
//   luma_of_colour                 true: the output is a new luma for the input, so `run` writes
//                                  the result (in colour for a colour photo: its chroma kept) to
//                                  --output, and the picture beside it as <stem>-<picture_name>.png;
//                                  picture_what says what the picture shows
// docs/adding_a_lab.md walks through a worked example.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "labkit/generators.hpp"
#include "labkit/gpu_context.hpp"
#include "labkit/image.hpp"

namespace grader {

inline constexpr labkit::Pattern kDefaultPerfPatterns[] = {labkit::Pattern::random};

// The Params of a lab without run-time parameters.
struct NoParams {};

// Contracts without parameters inherit this for params_text/parse_params.
struct WithoutParams {
    using Params = NoParams;
    static std::string params_text(const NoParams&) { return "-"; }
    static NoParams parse_params(std::string_view) { return {}; }
};

// Contracts whose input is an 8-bit gray image (a shared pattern, or a photo as it is) and whose
// output has the input's size inherit this for output_size, make_input and from_photo.
struct GrayInSameSizeOut {
    static std::pair<int, int> output_size(int width, int height, const auto& /*params*/) { return {width, height}; }
    static labkit::GrayImage make_input(labkit::Pattern p, int width, int height, std::uint64_t seed) {
        return labkit::generate(p, width, height, seed);
    }
    static labkit::GrayImage from_photo(labkit::GrayImage gray) { return gray; }
};

// One more timing table: the variants whose names match `glob`, columns named by what follows
// their common prefix; each cell "ms (×speedup)" against `versus` (empty: the reference).
struct PerfView {
    std::string_view title;
    std::string_view glob;
    std::string_view versus = "";
};

template <class C>
constexpr auto perf_patterns_of() {
    if constexpr (requires { C::perf_patterns; })
        return std::span<const labkit::Pattern>(C::perf_patterns);
    else
        return std::span<const labkit::Pattern>(kDefaultPerfPatterns);
}

template <class C>
constexpr std::span<const PerfView> perf_views_of() {
    if constexpr (requires { C::perf_views; })
        return C::perf_views;
    else
        return {};
}

template <class C>
constexpr bool luma_of_colour() {
    if constexpr (requires { C::luma_of_colour; })
        return C::luma_of_colour;
    else
        return false;
}

enum class Target { cpu, gpu };
constexpr std::string_view target_name(Target t) { return t == Target::gpu ? "gpu" : "cpu"; }

// One stage of a pipeline, for the per-stage bandwidth columns.
struct Stage {
    std::string_view name;
    double bytes_per_pixel;  // what the stage must read and write, per pixel of the input
};

// How an output is compared with the reference: exact, or |got - want| <= abs + rel * |want|.
struct Comparison {
    double abs = 0, rel = 0;
    constexpr bool is_exact() const { return abs == 0 && rel == 0; }
};
constexpr Comparison exact() { return {}; }
constexpr Comparison within(double abs, double rel) { return {abs, rel}; }

// Outputs (and every intermediate image) are filled with this byte before each run, so an
// element nobody wrote is caught. The check is bitwise: 0xFF bytes make a float NaN, which
// compares unequal to everything, so a float lab's poison can never pass by accident.
template <class T>
constexpr unsigned char poison_byte() {
    return std::is_floating_point_v<T> ? 0xFF : 0xA5;
}

// One row of a variant table. Every row of a table has the same launcher signature: CPU rows
// take a thread count, GPU rows a GpuContext. Exactly one of the two is set.
template <class C>
struct Variant {
    using In = typename C::In;
    using Out = typename C::Out;
    using Params = typename C::Params;
    using CpuFn = std::function<void(labkit::View<const In>, labkit::View<Out>, const Params&, int threads)>;
    using GpuFn = std::function<void(labkit::View<const In>, labkit::View<Out>, const Params&, labkit::GpuContext&)>;

    std::string_view name;     // includes its configuration, e.g. "gpu-02-tiled-b16"
    std::string_view summary;  // one line for tables and `list`
    CpuFn cpu;
    GpuFn gpu;

    Target target() const { return gpu ? Target::gpu : Target::cpu; }
};

}  // namespace grader
