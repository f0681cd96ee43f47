// What a lab tells the harness about one exercise, shared by the grader and the runner.
//
// An exercise is one variant table plus its contract. A contract is a struct C with:
//   name, reference_name           the exercise's name, and the name its reference has in tables
//   In, Out, Params                pixel types and run-time parameters (protocol::NoParams if none)
//   output_size(w, h, params)      the output's width and height
//   make_input(pattern, w, h, seed)  a test image of In for a shared pattern (labkit::Pattern)
//   patterns, uses_photos          which shared patterns the cases use; whether photos are cases
//   from_photo(gray)               a photo as an input image (for cases and `run`)
//   comparison                     protocol::exact() or protocol::within(abs, rel) (or comparison_for below)
//   min_bytes_per_pixel            the traffic floor: read the input once, write the output once
//   stages                         named stages of a pipeline and the bytes each must move
//   params_text / parse_params     Params to and from one line of text (the case files carry it)
// optional on both sides, for a lab with run-time parameters (protocol::NoParams labs need none):
//   default_params()               the Params of the shared cases and of `run` (default: Params{})
//   perf_params()                  the labelled Params the timings use, each with its own tables
//                                  (default: one, unlabelled, default_params()); one marked
//                                  on_request is timed only when --perf-params names it
//   comparison_for(params)         the comparison of a case, when the tolerance depends on the
//                                  parameters (default: comparison)
//   applies(variant, params)       false when a variant does not apply to a case's parameters
//                                  (a separable pass on a non-separable filter): the case is not
//                                  given to that variant, nor counted for it
//   flops_per_pixel(variant, params)  the arithmetic per output pixel of a variant (the
//                                  reference's name for the reference): the tables then show
//                                  GFLOP/s and the % of the measured FP32 FMA rate, and CPU
//                                  timings whose one call would exceed the grader's
//                                  --cpu-max-gflop (default kCpuPerfMaxFlops) are left out
//   run_options, params_from_options(values)   `run`'s own options (e.g. --filter, --border),
//                                  turned into Params; a bad value throws std::invalid_argument
//   described(params)              what the Params are, as named lists of numbers (Lab 3: a
//                                  filter's size, weights and factors), for the grader's
//                                  `contract`, which tools outside the kit read instead of
//                                  restating how a lab makes its parameters
// and, in a file only the grader links (the runner never sees them):
//   reference(in, out, params)     the sequential reference
//   picture(in, out, option)       a gray picture of a case and its output, for `run` (option: the
//                                  lab's picture option, LabDescription::picture_option)
//   lab_cases(seed)                optional: the lab's own cases beyond the shared ones
// and, optional on both sides:
//   perf_patterns                  the shared patterns the timings use (default: random); each
//                                  gets its own tables, e.g. uniform noise and a skewed image
//   perf_views                     named subsets of the variants, each shown as one more table:
//                                  rows the sizes, columns the variants (protocol::PerfView)
//   luma_of_colour                 true: the output is a new luma for the input, so `run` writes
//                                  the result (in colour for a colour photo: its chroma kept) to
//                                  --output, and the picture beside it as <stem>-<picture_name>.png;
//                                  picture_what says what the picture shows
// docs/adding_a_lab.md walks through a worked example.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "labkit/generators.hpp"
#include "labkit/gpu_context.hpp"
#include "labkit/gpu_limits.hpp"
#include "labkit/image.hpp"

namespace protocol {

inline constexpr labkit::Pattern kDefaultPerfPatterns[] = {labkit::Pattern::random};

// The Params of a lab without run-time parameters.
struct NoParams {};

// Parameters with a label, for the timing tables ("k=5", a 5x5 Gaussian).
template <class P>
struct LabelledParams {
    std::string label;
    P params;
    // Timed only when `grade --perf-params` names it: a measurement for the expert tier or a
    // benchmark that would make every grading longer.
    bool on_request = false;
};

// One option of `run` that a lab's parameters take: --NAME VALUE.
struct RunOption {
    std::string_view name;
    std::string_view default_value;
    std::string_view help;
};

// CPU timings are left out where one call would exceed this many floating-point operations
// (seconds of sequential work per call): the tables show "—" there. The default of the grader's
// --cpu-max-gflop, which an instructor raises to time the OpenMP variants on larger filters.
inline constexpr double kCpuPerfMaxFlops = 2e9;
inline constexpr double kFlopsPerGflop = 1e9;  // the option's unit

template <class C>
typename C::Params default_params_of() {
    if constexpr (requires { C::default_params(); })
        return C::default_params();
    else
        return typename C::Params{};
}

template <class C>
std::vector<LabelledParams<typename C::Params>> perf_params_of() {
    if constexpr (requires { C::perf_params(); })
        return C::perf_params();
    else
        return {{"", default_params_of<C>()}};
}

template <class C>
constexpr auto comparison_of(const typename C::Params& params) {
    if constexpr (requires { C::comparison_for(params); })
        return C::comparison_for(params);
    else
        return C::comparison;
}

template <class C>
bool applies_to(std::string_view variant, const typename C::Params& params) {
    if constexpr (requires { C::applies(variant, params); })
        return C::applies(variant, params);
    else
        return true;
}

template <class C>
double flops_per_pixel_of(std::string_view variant, const typename C::Params& params) {
    if constexpr (requires { C::flops_per_pixel(variant, params); })
        return C::flops_per_pixel(variant, params);
    else
        return 0;
}

// True when one call of a CPU variant (or the reference) at n x n would exceed max_flops.
template <class C>
bool too_slow_for_cpu_timing(std::string_view variant, const typename C::Params& params, int n, double max_flops) {
    return flops_per_pixel_of<C>(variant, params) * n * static_cast<double>(n) > max_flops;
}

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

// Cases above this many pixels are checked with the lab's `large_patterns` (default: all of its
// patterns). The large sizes are there for what only size shows (index overflow, grid limits, a
// sum that wraps), which one or two patterns catch; every pattern at 8192^2 made a correctness
// check of Lab 1 cost 8 s of its 10 s per GPU variant.
inline constexpr long long kLargeCasePixels = 1024LL * 1024;
// Emulated on the CPU (grade --emulate), a case costs a fiber switch per thread per barrier,
// whatever its pixels hold: a side this long (the quick sizes' strips and 1024x768) is there for
// its shape (several sections of the largest block, a ragged end), so an emulated GPU variant is
// checked on such an image's `large_patterns` only, while every shorter side keeps every pattern
// for the values (the CPU variants, cheap, keep them all). It cut the emulated checks of Lab 1's
// --quick from 13.6 s to 11.3 s on a 2-core machine.
inline constexpr int kEmulatedLargeSide = 1024;

template <class C>
constexpr auto patterns_at(int width, int height, bool emulated = false) {
    if constexpr (requires { C::large_patterns; })
        if (static_cast<long long>(width) * height > kLargeCasePixels ||
            (emulated && std::max(width, height) >= kEmulatedLargeSide))
            return std::span<const labkit::Pattern>(C::large_patterns);
    return std::span<const labkit::Pattern>(C::patterns);
}

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

// One named list of numbers of a contract's `described(params)`.
struct NamedValues {
    std::string name;
    std::vector<double> values;
};

// How an output is compared with the reference: exact, or |got - want| <= abs + rel * |want|.
struct Comparison {
    double abs = 0, rel = 0;
    constexpr bool is_exact() const { return abs == 0 && rel == 0; }
};
constexpr Comparison exact() { return {}; }
constexpr Comparison within(double abs, double rel) { return {abs, rel}; }

// The optional hooks of a contract with run-time parameters (Lab 3's filter and border), as one
// group: each has the default above when missing (default_params_of, perf_params_of,
// comparison_of, applies_to, flops_per_pixel_of); `run`'s options come with the function that
// turns them into Params, and described(params) gives named lists of numbers. A contract
// without parameters (WithoutParams) has none of them.
template <class C>
concept ParameterHooks =
    (!requires { C::run_options; } || requires(const std::vector<std::string>& values) {
        { C::params_from_options(values) } -> std::same_as<typename C::Params>;
    }) &&
    (!requires { C::perf_params(); } ||
     requires { { C::perf_params() } -> std::convertible_to<std::vector<LabelledParams<typename C::Params>>>; }) &&
    (!requires(const typename C::Params& p) { C::described(p); } ||
     requires(const typename C::Params& p) { { C::described(p) } -> std::convertible_to<std::vector<NamedValues>>; }) &&
    (std::is_same_v<typename C::Params, NoParams> ||
     requires(const typename C::Params& p) { { C::params_text(p) } -> std::convertible_to<std::string>; });

// The contract as a concept: what every exercise has (the list at the top of this file), checked
// where the harness takes a lab's exercises (ExerciseOf, the runner's tables), so that a missing
// or mistyped member is named there, not deep inside a template.
template <class C>
concept Contract = requires(const typename C::Params& params, labkit::Pattern pattern, int size, std::uint64_t seed,
                            const labkit::GrayImage& gray, std::string_view text) {
    { C::name } -> std::convertible_to<std::string_view>;
    { C::reference_name } -> std::convertible_to<std::string_view>;
    typename C::In;
    typename C::Out;
    { C::output_size(size, size, params) } -> std::same_as<std::pair<int, int>>;
    { C::make_input(pattern, size, size, seed) } -> std::same_as<labkit::HostImage<typename C::In>>;
    { C::from_photo(gray) } -> std::same_as<labkit::HostImage<typename C::In>>;
    { std::span<const labkit::Pattern>(C::patterns) };
    { C::uses_photos } -> std::convertible_to<bool>;
    { C::min_bytes_per_pixel } -> std::convertible_to<double>;
    { std::span<const Stage>(C::stages) };
    { C::params_text(params) } -> std::convertible_to<std::string>;
    { C::parse_params(text) } -> std::same_as<typename C::Params>;
    { comparison_of<C>(params) } -> std::same_as<Comparison>;  // C::comparison, or C::comparison_for(params)
} && ParameterHooks<C>;

// Outputs (and every intermediate image) are filled with this byte before each run, so an
// element nobody wrote is caught. The check is bitwise: 0xFF bytes make a float NaN, which
// compares unequal to everything, so a float lab's poison can never pass by accident.
template <class T>
constexpr unsigned char poison_byte() {
    return std::is_floating_point_v<T> ? 0xFF : 0xA5;
}

// What a GPU row needs of the GPU beyond what every GPU from sm_75 (the kit's floor) gives. The
// default needs nothing more: compute capability 7.5, and no launch over the 48 KB of dynamic
// shared memory a block may take without opting in. The runner checks a row's needs against the
// GPU before running it (a row that does not fit is skipped, saying what it needs and what the
// GPU has). tests/resource_fit_selftest.py checks, without a GPU, that each reference row runs on
// exactly the architectures its needs say (registers and static shared memory included).
template <class Params>
struct Needs {
    int min_cc = labkit::kOldestCc;  // compute capability x 10: 80 for sm_80
    // The dynamic shared memory per block it cannot run without, for these parameters (its
    // tuning is the row's own): the most any of its launches asks, or for a row that adapts to
    // a smaller GPU (asks less where less is given), its smallest configuration's. Empty: at most
    // kDefaultDynamicSharedBytes.
    std::function<std::size_t(const Params&)> shared_bytes = {};
    std::string_view feature = "";  // why min_cc, in words ("cooperative launch"); "" for none

    std::size_t shared_for(const Params& p) const { return shared_bytes ? shared_bytes(p) : labkit::kDefaultDynamicSharedBytes; }
};

// The needs of a row whose launches ask `bytes` of dynamic shared memory per block, whatever the
// parameters.
template <class Params>
Needs<Params> needs_shared(std::size_t bytes) {
    return {labkit::kOldestCc, [bytes](const Params&) { return bytes; }};
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
    using SetupFn = std::function<void(const Params&, labkit::GpuContext&)>;

    std::string_view name;     // includes its configuration, e.g. "gpu-02-tiled-b16"
    std::string_view summary;  // one line for tables and `list`
    CpuFn cpu;
    GpuFn gpu;
    // Optional, GPU rows: what a variant does once for a set of parameters (upload a filter's
    // weights). It runs before each run outside the kernel-only timing, inside the end-to-end one.
    SetupFn setup = {};
    Needs<Params> needs = {};  // GPU rows: what it needs beyond sm_75's floor (Needs)

    Target target() const { return gpu ? Target::gpu : Target::cpu; }
};

}  // namespace protocol
