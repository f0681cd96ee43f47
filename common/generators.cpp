#include "labkit/generators.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>
#include <thread>
#include <vector>

namespace labkit {
namespace {
constexpr int kCheckerSquare = 8;        // pixels per checkerboard square side
constexpr int kLowContrastBase = 100;    // low-contrast images span [100, 100 + 40): a dull,
constexpr int kLowContrastRange = 40;    // washed-out photo, the input histogram equalization fixes
constexpr int kLevels = 256;
constexpr std::uint64_t kSkewedPercent = 90;  // share of the skewed image's pixels that are white
constexpr std::uint64_t kPercent = 100;
// Pixels per thread below which a thread costs more than it saves: a timed 8192^2 image takes about
// 0.2 s on one core, drawn afresh for every timed run (grader/runner/runner.hpp), so large images
// are drawn on every core; small ones, on the caller's.
constexpr int kMinPixelsPerThread = 1 << 20;

GrayImage photo_;  // use_photo's; empty: none

// Index i of a row (or column) of n pixels repeated mirrored: 0 1 .. n-1 n-1 .. 1 0 0 1 ..
int mirrored(std::uint64_t i, int n) {
    const std::uint64_t period = 2 * static_cast<std::uint64_t>(n), m = i % period;
    return static_cast<int>(m < static_cast<std::uint64_t>(n) ? m : period - 1 - m);
}

void fill_photo_rows(GrayImage& img, std::uint64_t seed, int first, int last) {
    const std::uint64_t dx = mix64(seed), dy = mix64(dx);  // the shift: anywhere in a mirrored period
    const std::uint64_t x0 = dx % (2 * static_cast<std::uint64_t>(photo_.width()));
    const std::uint64_t y0 = dy % (2 * static_cast<std::uint64_t>(photo_.height()));
    for (int y = first; y < last; ++y) {
        const int py = mirrored(y0 + y, photo_.height());
        for (int x = 0; x < img.width(); ++x) img(x, y) = photo_(mirrored(x0 + x, photo_.width()), py);
    }
}

// Rows first..last-1 of the pattern. A pixel is a function of its index and the seed only (mix64
// is counter-based), so the image is the same however its rows are shared out.
void fill_rows(GrayImage& img, Pattern pattern, std::uint64_t seed, int first, int last) {
    if (pattern == Pattern::photo) return fill_photo_rows(img, seed, first, last);
    const int width = img.width(), height = img.height();
    for (int y = first; y < last; ++y) {
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
                case Pattern::photo: break;  // fill_photo_rows
            }
            img(x, y) = static_cast<std::uint8_t>(v);
        }
    }
}
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

void use_photo(GrayImage photo) {
    if (photo.pixels() == 0) throw std::invalid_argument("the photo pattern's photo has no pixels");
    photo_ = std::move(photo);
}

const GrayImage* photo_in_use() { return photo_.pixels() == 0 ? nullptr : &photo_; }

GrayImage generate(Pattern pattern, int width, int height, std::uint64_t seed) {
    if (pattern == Pattern::photo && photo_.pixels() == 0)
        throw std::invalid_argument("the photo pattern needs a photo, and none was given");
    GrayImage img(width, height);
    const std::size_t pixels = static_cast<std::size_t>(width) * height;
    const int threads = static_cast<int>(std::min<std::size_t>(
        {pixels / kMinPixelsPerThread, std::thread::hardware_concurrency(), static_cast<std::size_t>(height)}));
    if (threads <= 1) {
        fill_rows(img, pattern, seed, 0, height);
        return img;
    }
    const int per = (height + threads - 1) / threads;
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t)
        pool.emplace_back(fill_rows, std::ref(img), pattern, seed, std::min(height, t * per), std::min(height, (t + 1) * per));
    fill_rows(img, pattern, seed, 0, std::min(height, per));
    pool.clear();  // joins every thread: the image is complete
    return img;
}

}  // namespace labkit
