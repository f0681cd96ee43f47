#include "labkit/generators.hpp"

namespace labkit {
namespace {
constexpr int kCheckerSquare = 8;        // pixels per checkerboard square side
constexpr int kLowContrastBase = 100;    // low-contrast images span [100, 100 + 40): a dull,
constexpr int kLowContrastRange = 40;    // washed-out photo, the input histogram equalization fixes
constexpr int kLevels = 256;
constexpr std::uint64_t kSkewedPercent = 90;  // share of the skewed image's pixels that are white
constexpr std::uint64_t kPercent = 100;
}  // namespace

std::optional<Pattern> parse_pattern(std::string_view name) {
    for (const auto& p : kPatterns)
        if (p.name == name) return p.pattern;
    return std::nullopt;
}

std::string_view pattern_name(Pattern pattern) {
    for (const auto& p : kPatterns)
        if (p.pattern == pattern) return p.name;
    return "?";
}

GrayImage generate(Pattern pattern, int width, int height, std::uint64_t seed) {
    GrayImage img(width, height);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const std::uint64_t index = static_cast<std::uint64_t>(y) * width + x;
            int v = 0;
            switch (pattern) {
                case Pattern::random: v = static_cast<int>(mix64(seed ^ mix64(index)) % kLevels); break;
                case Pattern::zeros: v = 0; break;
                case Pattern::full: v = kLevels - 1; break;
                case Pattern::gradient: {
                    const long long span = static_cast<long long>(width) + height - 2;
                    v = span == 0 ? 0 : static_cast<int>((static_cast<long long>(x) + y) * (kLevels - 1) / span);
                    break;
                }
                case Pattern::checkerboard:
                    v = ((x / kCheckerSquare + y / kCheckerSquare) % 2) ? kLevels - 1 : 0;
                    break;
                case Pattern::low_contrast:
                    v = kLowContrastBase + static_cast<int>(mix64(seed ^ mix64(index)) % kLowContrastRange);
                    break;
                case Pattern::skewed: {
                    const std::uint64_t r = mix64(seed ^ mix64(index));
                    v = r % kPercent < kSkewedPercent ? kLevels - 1 : static_cast<int>((r / kPercent) % kLevels);
                    break;
                }
            }
            img(x, y) = static_cast<std::uint8_t>(v);
        }
    }
    return img;
}

}  // namespace labkit
