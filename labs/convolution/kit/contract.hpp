// Lab 3's contract with the harness: a float image in and out, a filter and a border mode as
// run-time parameters, the tolerance that follows from float32 sums, the lab's own cases, and
// what the timings use. Shared by the grader and the runner; the reference and the picture
// (reference.cpp) are linked into the grader only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exercise.hpp"
#include "filters.hpp"

namespace convolution {

struct Params {
    Filter filter = make_filter("gaussian:5");
    Border border = Border::mirror;
};

using FloatImage = labkit::HostImage<float>;

struct LabCase {
    std::string name;
    FloatImage input;
    Params params;
};

struct Convolution {
    static constexpr std::string_view name = "convolution";
    static constexpr std::string_view reference_name = "cpu-sequential";
    using In = float;
    using Out = float;
    using Params = convolution::Params;

    // ---- The parameters (protocol::ParameterHooks): a filter and a border ------------------------
    // They travel to the runner as one line of text with every weight written exactly.
    static std::string params_text(const Params& p);
    static Params parse_params(std::string_view text);  // throws std::invalid_argument
    static Params default_params() { return {}; }       // a 5x5 Gaussian, mirror border
    // `run --filter SPEC --border MODE`.
    static constexpr protocol::RunOption run_options[] = {
        {"filter", "gaussian:5", "the filter: box:K, gaussian:K, gaussian:sigma=S[,size=K], gaussian-int:3|5, "
                                 "sharpen:3|5, edge:3|5, laplacian:3|5, file:PATH"},
        {"border", "mirror", "what lies past the edges: zero, replicate or mirror"},
    };
    static Params params_from_options(const std::vector<std::string>& values);
    // The filter as the grader's `contract` prints it: size, weights, the factors of a separable
    // one (row, column), each as the float32 every variant uses, and a Gaussian's sigma.
    static std::vector<protocol::NamedValues> described(const Params& p);

    // A float32 sum of k^2 products, in any order, is within gamma_n * sum|K * in| of the exact
    // sum (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 3.1); a separable pass
    // stays within gamma_(2k+1). The tolerance is (k^2 + 2) * 2^-23 * 255 * sum|K|: twice either
    // bound, whatever the summation order, FMA or not (the handout derives it).
    static protocol::Comparison comparison_for(const Params& p);

    // The separable variants (and NPP's row and column peer) apply to separable filters only.
    static bool applies(std::string_view variant, const Params& p);

    // The direct sum is 2 k^2 FLOP per pixel; a row pass and a column pass, 4 k (04, NPP's pair, and both
    // expert tiers on a separable filter).
    static double flops_per_pixel(std::string_view variant, const Params& p);
    // The report's filter sizes (3, 5) and larger ones: Gaussians, so every variant is timed.
    static std::vector<protocol::LabelledParams<Params>> perf_params();

    // ---- The rest of the contract ----------------------------------------------------------------
    static std::pair<int, int> output_size(int width, int height, const Params&) { return {width, height}; }
    // The shared patterns as floats (0..255, whole numbers); the lab's own cases add fractions.
    static FloatImage make_input(labkit::Pattern p, int width, int height, std::uint64_t seed);
    static FloatImage from_photo(const labkit::GrayImage& gray);  // BT.601 gray, as everywhere in the kit

    // Noise and hard edges; the default parameters on the shared sizes, every filter, border and
    // k on the lab's own cases (contract.cpp).
    static constexpr labkit::Pattern patterns[] = {labkit::Pattern::random, labkit::Pattern::checkerboard};
    static constexpr labkit::Pattern large_patterns[] = {labkit::Pattern::random};  // above a megapixel
    static constexpr bool uses_photos = true;
    static std::vector<LabCase> lab_cases(std::uint64_t seed);

    // Read the input once, write the output once: 8 B/px.
    static constexpr double min_bytes_per_pixel = 4 + 4;
    static constexpr std::array<protocol::Stage, 0> stages{};
    static constexpr protocol::PerfView perf_views[] = {
        {"Memory variants at 16x16 (the report's table)", "gpu-0?-*-b16x16", "gpu-01-global-b16x16"},
        {"Block shapes of the shared-memory tiles, k at run time (03) and at compile time (3h)", "gpu-03-*",
         "gpu-01-global-b16x16"},
    };

    // Grader only (reference.cpp).
    static void reference(labkit::View<const In> in, labkit::View<Out> out, const Params& p);
    static labkit::GrayImage picture(labkit::View<const In> in, labkit::View<const Out> out, int);
    static labkit::GrayImage diff_background(labkit::View<const In> in, labkit::View<const Out>);
};

// The prefix of the variants that need a separable filter (kit/tables.cpp names them so).
inline constexpr std::string_view kSeparablePrefix = "gpu-04-separable";
// The expert tier (optional challenge): every filter, and a separable one on its factors (4k FLOP/px).
inline constexpr std::string_view kExpertVariant = "gpu-05-expert";
inline constexpr std::string_view kCpuExpertVariant = "cpu-openmp-expert";  // its OpenMP counterpart
// The peers (kit/peers.cu): NPP's 2D filter, and its row and column filters on separable filters.
inline constexpr std::string_view kNppPeer = "peer-npp";
inline constexpr std::string_view kNppSeparablePeer = "peer-npp-separable";

}  // namespace convolution
