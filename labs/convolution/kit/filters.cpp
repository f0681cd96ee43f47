#include "filters.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace convolution {
namespace {

// OpenCV's getGaussianKernel rule for the sigma of a k-tap Gaussian when none is given.
constexpr double kSigmaPerTap = 0.3, kSigmaBase = 0.8;
constexpr double kGaussianReach = 3;  // a Gaussian of sigma s needs about 3 s of taps each side

std::invalid_argument bad(std::string_view spec, const std::string& why) {
    return std::invalid_argument("--filter " + std::string(spec) + ": " + why + " (filters: " + std::string(kFilterHelp) + ")");
}

double to_number(std::string_view text, std::string_view spec) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
        throw bad(spec, "'" + std::string(text) + "' is not a number");
    return v;
}

int to_size(std::string_view text, std::string_view spec) {
    const double v = to_number(text, spec);
    if (v != std::floor(v) || v < 1 || v > kMaxFilterSize || static_cast<int>(v) % 2 == 0)
        throw bad(spec, "the size must be odd, from 1 to " + std::to_string(kMaxFilterSize) + ", not " + std::string(text));
    return static_cast<int>(v);
}

// A separable filter from its 1D factors (column: along y, row: along x), in float as the
// kernels use them; one factor given: the same along both axes.
Filter separable(std::string name, const std::vector<double>& row, const std::vector<double>& column = {}) {
    Filter f;
    f.name = std::move(name);
    f.size = static_cast<int>(row.size());
    for (double t : row) f.row.push_back(static_cast<float>(t));
    for (double t : column.empty() ? row : column) f.column.push_back(static_cast<float>(t));
    for (float c : f.column)
        for (float r : f.row) f.weights.push_back(c * r);  // float products: what a row-then-column pass multiplies
    return f;
}

std::vector<double> gaussian_taps(int size, double sigma) {
    std::vector<double> taps(size);
    double sum = 0;
    for (int i = 0; i < size; ++i) {
        const double d = i - size / 2;
        sum += taps[i] = std::exp(-d * d / (2 * sigma * sigma));
    }
    for (double& t : taps) t /= sum;  // normalized: a flat image stays flat
    return taps;
}

Filter gaussian(std::string_view spec, std::string_view args) {
    double sigma = 0;
    int size = 0;
    if (args.find('=') == std::string_view::npos) {
        size = to_size(args, spec);
        sigma = kSigmaPerTap * ((size - 1) * 0.5 - 1) + kSigmaBase;
    } else {
        while (!args.empty()) {
            const auto comma = args.find(',');
            const auto item = args.substr(0, comma);
            args = comma == std::string_view::npos ? std::string_view() : args.substr(comma + 1);
            const auto eq = item.find('=');
            const auto key = item.substr(0, eq), value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
            if (key == "sigma") {
                sigma = to_number(value, spec);
                if (sigma <= 0) throw bad(spec, "sigma must be above 0");
            } else if (key == "size") {
                size = to_size(value, spec);
            } else {
                throw bad(spec, "unknown setting '" + std::string(key) + "' (sigma=, size=)");
            }
        }
        if (sigma <= 0) throw bad(spec, "give sigma=S");
        if (size == 0) {
            size = 2 * static_cast<int>(std::ceil(kGaussianReach * sigma)) + 1;
            if (size > kMaxFilterSize)
                throw bad(spec, "this sigma needs " + std::to_string(size) + " taps (2 * ceil(3 sigma) + 1), more than " +
                                    std::to_string(kMaxFilterSize) + "; give size=K <= " + std::to_string(kMaxFilterSize));
        }
    }
    Filter f = separable(std::string(spec), gaussian_taps(size, sigma));
    f.sigma = sigma;
    return f;
}

// The fixed 3x3 and 5x5 kernels of the bank, row-major.
Filter fixed(std::string_view spec, int size, std::vector<float> weights) { return filter_from_weights(std::string(spec), size, std::move(weights)); }

Filter three_or_five(std::string_view spec, std::string_view args, const std::vector<float>& k3, const std::vector<float>& k5) {
    if (args == "3") return fixed(spec, 3, k3);
    if (args == "5") return fixed(spec, 5, k5);
    throw bad(spec, "this filter comes in sizes 3 and 5");
}

// Sobel, horizontal gradient: a smoothing column times a difference row. Its row sums go negative,
// so a separable pass that clamped (or rounded) its intermediate image would be caught on it.
Filter sobel(std::string_view spec, std::string_view args) {
    if (args == "3") return separable(std::string(spec), {-1, 0, 1}, {1, 2, 1});
    if (args == "5") return separable(std::string(spec), {-1, -2, 0, 2, 1}, {1, 4, 6, 4, 1});
    throw bad(spec, "this filter comes in sizes 3 and 5");
}

// 2 * identity - the 5x5 binomial Gaussian: unsharp masking, coefficients sum to 1.
std::vector<float> unsharp5() {
    const double binomial[] = {1, 4, 6, 4, 1};
    constexpr double kBinomialSum = 256;
    std::vector<float> w;
    for (double c : binomial)
        for (double r : binomial) w.push_back(static_cast<float>(-c * r / kBinomialSum));
    w[12] += 2.0f;
    return w;
}

// A pillbox (defocus blur): the mean over the pixels within k/2 of the centre. Round, so not
// separable for k >= 3: the 2D sum has to do all of its taps.
Filter disk(std::string_view spec, std::string_view args) {
    const int k = args.empty() ? 3 : to_size(args, spec);
    const int r = k / 2;
    std::vector<float> w(static_cast<std::size_t>(k) * k, 0.0f);
    int inside = 0;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) inside += dx * dx + dy * dy <= r * r;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
            if (dx * dx + dy * dy <= r * r) w[static_cast<std::size_t>(dy + r) * k + (dx + r)] = 1.0f / inside;
    return filter_from_weights(std::string(spec), k, std::move(w));
}

}  // namespace

double Filter::abs_sum() const {
    double s = 0;
    for (float w : weights) s += std::abs(static_cast<double>(w));
    return s;
}

Filter filter_from_weights(std::string name, int size, std::vector<float> weights) {
    if (size < 1 || size > kMaxFilterSize || size % 2 == 0)
        throw std::invalid_argument(name + ": a filter is k x k with k odd, from 1 to 25, not " + std::to_string(size));
    if (weights.size() != static_cast<std::size_t>(size) * size)
        throw std::invalid_argument(name + ": " + std::to_string(weights.size()) + " weights for a " + std::to_string(size) +
                                    "x" + std::to_string(size) + " filter");
    for (float w : weights)
        if (!std::isfinite(w)) throw std::invalid_argument(name + ": a weight is not a finite number");
    Filter f;
    f.name = std::move(name);
    f.size = size;
    f.weights = std::move(weights);
    return f;
}

Filter make_filter(std::string_view spec) {
    const auto colon = spec.find(':');
    const auto kind = spec.substr(0, colon);
    const auto args = colon == std::string_view::npos ? std::string_view() : spec.substr(colon + 1);
    if (kind == "box") {
        const int k = args.empty() ? 3 : to_size(args, spec);
        return separable(std::string(spec), std::vector<double>(k, 1.0 / k));
    }
    if (kind == "gaussian") return gaussian(spec, args.empty() ? "3" : args);
    if (kind == "disk") return disk(spec, args);
    if (kind == "gaussian-int") {
        if (args == "3") return separable(std::string(spec), {0.25, 0.5, 0.25});                    // /16
        if (args == "5") return separable(std::string(spec), {1 / 16.0, 4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0});  // /256
        throw bad(spec, "the integer Gaussians are 3x3 (/16) and 5x5 (/256)");
    }
    if (kind == "sharpen") return three_or_five(spec, args, {0, -1, 0, -1, 5, -1, 0, -1, 0}, unsharp5());
    if (kind == "edge") return sobel(spec, args);  // asymmetric: correlation and convolution differ
    if (kind == "laplacian")
        return three_or_five(spec, args, {0, 1, 0, 1, -4, 1, 0, 1, 0},
                             {0, 0, 1, 0, 0, 0, 1, 2, 1, 0, 1, 2, -16, 2, 1, 0, 1, 2, 1, 0, 0, 0, 1, 0, 0});
    if (kind == "file") {
        if (args.empty()) throw bad(spec, "name the file: file:PATH");
        return read_filter_file(std::string(args));
    }
    throw bad(spec, "no filter '" + std::string(kind) + "'");
}

Filter read_filter_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::invalid_argument("--filter file:" + path + ": cannot read the file");
    const std::string where = "--filter file:" + path;
    std::vector<std::vector<float>> rows;
    double divisor = 1;
    bool divided = false;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const std::string at = where + ", line " + std::to_string(number) + ": ";
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::vector<std::string_view> tokens;
        for (std::size_t i = 0; i < line.size();) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            std::size_t j = i;
            while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
            if (j > i) tokens.emplace_back(line.data() + i, j - i);
            i = j;
        }
        if (tokens.empty()) continue;
        if (divided) throw std::invalid_argument(at + "nothing may follow the '/ D' line");
        if (tokens.front().starts_with("/")) {  // "/ 16" or "/16"
            if (tokens.front().size() > 1) tokens.insert(tokens.begin() + 1, tokens.front().substr(1));
            if (tokens.size() != 2) throw std::invalid_argument(at + "write the divisor as '/ D'");
            divisor = to_number(tokens[1], where);
            if (divisor == 0) throw std::invalid_argument(at + "the divisor is 0");
            divided = true;
            continue;
        }
        std::vector<float> row;
        for (auto t : tokens) {
            double v = 0;
            const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
            if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v))
                throw std::invalid_argument(at + "'" + std::string(t) + "' is not a number");
            if (std::abs(v) > std::numeric_limits<float>::max())
                throw std::invalid_argument(at + "'" + std::string(t) + "' is too large for a float weight");
            row.push_back(static_cast<float>(v));
        }
        if (!rows.empty() && row.size() != rows.front().size())
            throw std::invalid_argument(at + std::to_string(row.size()) + " numbers, but the first row has " +
                                        std::to_string(rows.front().size()));
        rows.push_back(std::move(row));
    }
    if (rows.empty()) throw std::invalid_argument(where + ": no weights (k lines of k numbers)");
    const int k = static_cast<int>(rows.size());
    if (rows.front().size() != rows.size())
        throw std::invalid_argument(where + ": " + std::to_string(rows.size()) + " rows of " +
                                    std::to_string(rows.front().size()) + " numbers; a filter is square");
    std::vector<float> weights;
    for (const auto& r : rows)
        for (float w : r) weights.push_back(static_cast<float>(w / divisor));
    return filter_from_weights("file:" + path, k, std::move(weights));
}

Border parse_border(std::string_view name) {
    if (name == "zero") return Border::zero;
    if (name == "replicate") return Border::replicate;
    if (name == "mirror") return Border::mirror;
    throw std::invalid_argument("--border " + std::string(name) + ": the border modes are zero, replicate and mirror");
}

std::string_view border_name(Border b) {
    switch (b) {
        case Border::zero: return "zero";
        case Border::replicate: return "replicate";
        case Border::mirror: return "mirror";
    }
    return "?";
}

}  // namespace convolution
