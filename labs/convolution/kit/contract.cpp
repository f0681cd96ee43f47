// The parts of the contract that both the grader and the runner need.
#include "contract.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace convolution {
namespace {

constexpr char kFieldSep = ';';
constexpr double kTwoToMinus23 = 1.0 / (1 << 23);  // float32's machine epsilon: twice the unit roundoff

std::string floats_text(const std::vector<float>& values) {
    std::string s;
    for (float v : values) {
        std::array<char, 32> buf{};
        const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);  // shortest exact text
        if (!s.empty()) s += ',';
        s.append(buf.data(), r.ptr);
    }
    return s;
}

std::vector<float> parse_floats(std::string_view text) {
    std::vector<float> out;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const auto item = text.substr(0, comma);
        float v = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (ec != std::errc() || end != item.data() + item.size()) throw std::invalid_argument("bad weight '" + std::string(item) + "'");
        out.push_back(v);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return out;
}

// Random values with fractions, 0..255: what a float image can hold and a u8 pattern cannot.
FloatImage fractional_noise(int width, int height, std::uint64_t seed) {
    constexpr double kTwoTo53 = 9007199254740992.0;
    constexpr int kMantissaShift = 11;  // 64 - 53 bits: a uniform double in [0, 1)
    FloatImage img(width, height);
    for (std::size_t i = 0; i < img.pixels(); ++i)
        img.data()[i] = static_cast<float>(kMaxValue * (labkit::mix64(seed + i) >> kMantissaShift) / kTwoTo53);
    return img;
}

// Weights in [-1, 1) from the seed: an asymmetric filter, as a user's file could hold.
Filter random_filter(int size, std::uint64_t seed) {
    const FloatImage w = fractional_noise(size, size, seed);
    std::vector<float> weights;
    for (std::size_t i = 0; i < w.pixels(); ++i) weights.push_back(w.data()[i] / kMaxValue * 2 - 1);
    return filter_from_weights("random asymmetric " + std::to_string(size) + "x" + std::to_string(size), size, std::move(weights));
}

}  // namespace

std::string Convolution::params_text(const Params& p) {
    std::string name = p.filter.name;
    for (char& c : name)
        if (static_cast<unsigned char>(c) < ' ') c = '?';  // one line of a tab-separated manifest
    std::string s = "border=" + std::string(border_name(p.border)) + kFieldSep + "k=" + std::to_string(p.filter.size) +
                    kFieldSep + "w=" + floats_text(p.filter.weights);
    if (p.filter.separable())
        s += kFieldSep + std::string("row=") + floats_text(p.filter.row) + kFieldSep + "column=" + floats_text(p.filter.column);
    return s + kFieldSep + "name=" + name;  // last: a file name may hold any character
}

Params Convolution::parse_params(std::string_view text) {
    Params p;
    int size = 0;
    std::vector<float> weights, row, column;
    std::string name;
    while (!text.empty()) {
        const auto eq = text.find('=');
        if (eq == std::string_view::npos) throw std::invalid_argument("malformed parameters");
        const auto key = text.substr(0, eq);
        if (key == "name") {
            name = std::string(text.substr(eq + 1));
            break;
        }
        const auto sep = text.find(kFieldSep);
        const auto value = text.substr(eq + 1, sep == std::string_view::npos ? std::string_view::npos : sep - eq - 1);
        if (key == "border") p.border = parse_border(value);
        else if (key == "k") size = std::stoi(std::string(value));
        else if (key == "w") weights = parse_floats(value);
        else if (key == "row") row = parse_floats(value);
        else if (key == "column") column = parse_floats(value);
        else throw std::invalid_argument("unknown parameter '" + std::string(key) + "'");
        text = sep == std::string_view::npos ? std::string_view() : text.substr(sep + 1);
    }
    p.filter = filter_from_weights(name, size, std::move(weights));
    if (row.size() != column.size() || (!row.empty() && row.size() != static_cast<std::size_t>(size)))
        throw std::invalid_argument("malformed separable factors");
    p.filter.row = std::move(row);
    p.filter.column = std::move(column);
    return p;
}

Params Convolution::params_from_options(const std::vector<std::string>& values) {
    return {make_filter(values.at(0)), parse_border(values.at(1))};
}

std::vector<protocol::NamedValues> Convolution::described(const Params& p) {
    const auto doubles = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
    return {{"size", {static_cast<double>(p.filter.size)}},
            {"weights", doubles(p.filter.weights)},
            {"row", doubles(p.filter.row)},
            {"column", doubles(p.filter.column)},
            {"sigma", p.filter.sigma > 0 ? std::vector<double>{p.filter.sigma} : std::vector<double>{}}};
}

FloatImage Convolution::make_input(labkit::Pattern p, int width, int height, std::uint64_t seed) {
    return from_photo(labkit::generate(p, width, height, seed));
}

FloatImage Convolution::from_photo(const labkit::GrayImage& gray) {
    FloatImage img(gray.width(), gray.height());
    for (std::size_t i = 0; i < gray.pixels(); ++i) img.data()[i] = gray.data()[i];
    return img;
}

std::vector<LabCase> Convolution::lab_cases(std::uint64_t seed) {
    // Every filter of the bank, k = 1 to 25, and two asymmetric ones (orientation), each border.
    const char* bank[] = {"box:1", "box:3", "gaussian:3", "gaussian-int:3", "gaussian-int:5", "gaussian:7",
                          "gaussian:sigma=2.0,size=9", "sharpen:3", "sharpen:5", "edge:3", "edge:5", "laplacian:3",
                          "laplacian:5", "box:25", "gaussian:25"};
    std::vector<Filter> filters;
    for (const char* spec : bank) filters.push_back(make_filter(spec));
    constexpr int kSmallAsym = 7;
    filters.push_back(random_filter(kSmallAsym, seed));
    filters.push_back(random_filter(kMaxFilterSize, seed + 1));
    constexpr Border kBorders[] = {Border::zero, Border::replicate, Border::mirror};

    std::vector<LabCase> cases;
    auto add = [&](int w, int h, std::uint64_t s, const Filter& f, Border b) {
        cases.push_back({std::to_string(w) + "x" + std::to_string(h) + " " + f.name + " " + std::string(border_name(b)),
                         fractional_noise(w, h, s), {f, b}});
    };
    constexpr int kBankW = 67, kBankH = 45;  // no multiple of any block; wider and taller than k = 25
    for (const Filter& f : filters)
        for (Border b : kBorders) add(kBankW, kBankH, seed + cases.size(), f, b);
    // Images smaller than the filter, strips and a 1x1: the border reaches across the whole image.
    constexpr std::pair<int, int> kTiny[] = {{3, 2}, {1, 1}, {1, 31}, {31, 1}, {24, 26}};
    for (const auto& [w, h] : kTiny)
        for (const Filter& f : {filters[13], filters.back()})  // box:25 and the asymmetric 25x25
            for (Border b : kBorders) add(w, h, seed + cases.size(), f, b);
    // Many blocks with the widest halo.
    constexpr int kMidW = 255, kMidH = 257;
    for (Border b : kBorders) add(kMidW, kMidH, seed + cases.size(), filters[14], b);
    return cases;
}

protocol::Comparison Convolution::comparison_for(const Params& p) {
    const double k2 = static_cast<double>(p.filter.size) * p.filter.size;
    return protocol::within((k2 + 2) * kTwoToMinus23 * kMaxValue * p.filter.abs_sum(), 0);
}

bool Convolution::applies(std::string_view variant, const Params& p) {
    return p.filter.separable() || !(variant.starts_with(kSeparablePrefix) || variant == kNppSeparablePeer);
}

double Convolution::flops_per_pixel(std::string_view variant, const Params& p) {
    constexpr double kFlopsPerFma = 2, kPasses = 2;
    const double k = p.filter.size;
    const bool expert = variant == kExpertVariant || variant == kCpuExpertVariant;
    const bool passes = variant.starts_with(kSeparablePrefix) || variant == kNppSeparablePeer || (expert && p.filter.separable());
    return passes ? kPasses * kFlopsPerFma * k : kFlopsPerFma * k * k;
}

std::vector<protocol::LabelledParams<Params>> Convolution::perf_params() {
    std::vector<protocol::LabelledParams<Params>> out;
    for (const int k : {3, 5, 9, 15, 25})
        out.push_back({"k=" + std::to_string(k), {make_filter("gaussian:" + std::to_string(k)), Border::mirror}});
    // The 2D sum at its largest, where the work is compute-bound (2 k^2 FLOP/px): timed only when
    // asked for (`--perf-params disk:25`), as it would add seconds to every grading.
    const std::string kLargestDisk = "disk:" + std::to_string(kMaxFilterSize);
    out.push_back({kLargestDisk, {make_filter(kLargestDisk), Border::mirror}, true});
    return out;
}

}  // namespace convolution
