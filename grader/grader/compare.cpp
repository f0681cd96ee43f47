#include "compare.hpp"

#include <algorithm>
#include <cstdio>

#include "labkit/image_io.hpp"

namespace protocol {

void save_rgb(const std::string& path, const std::vector<std::uint8_t>& rgb, int width, int height) {
    // A small case (a 3x2 image, a 1x31 strip) is drawn larger, each pixel a square, so that a
    // viewer shows it: up to kMinSide pixels on the long side, at most kMaxScale times.
    constexpr int kMinSide = 512, kMaxScale = 32;
    const int scale = std::clamp(kMinSide / std::max({width, height, 1}), 1, kMaxScale);
    if (scale == 1) {
        labkit::save_png_rgb(path, rgb.data(), width, height);
        return;
    }
    constexpr int kChannels = 3;
    const int w = width * scale, h = height * scale;
    std::vector<std::uint8_t> big(static_cast<std::size_t>(w) * h * kChannels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < kChannels; ++c)
                big[(static_cast<std::size_t>(y) * w + x) * kChannels + c] =
                    rgb[(static_cast<std::size_t>(y / scale) * width + x / scale) * kChannels + c];
    labkit::save_png_rgb(path, big.data(), w, h);
}

Window diff_window(int width, int height, int x, int y) {
    if (static_cast<std::size_t>(width) * height <= kDiffMaxPixels) return {0, 0, width, height};
    // The start of a side-long span centred on `at`, moved inside [0, full).
    const auto start = [](int at, int side, int full) { return std::clamp(at - side / 2, 0, full - side); };
    const int w = std::min(width, kDiffMaxSide), h = std::min(height, kDiffMaxSide);
    return {start(x, w, width), start(y, h, height), w, h};
}

std::string describe_window(Window w, int width, int height) {
    if (w.x0 == 0 && w.y0 == 0 && w.width == width && w.height == height) return "";
    return "the " + std::to_string(w.width) + "x" + std::to_string(w.height) + " window at (x=" + std::to_string(w.x0) +
           ", y=" + std::to_string(w.y0) + ") of the " + std::to_string(width) + "x" + std::to_string(height) + " output";
}

double psnr_db(double mse, double peak) {
    if (mse == 0) return std::numeric_limits<double>::infinity();
    return 10 * std::log10(peak * peak / mse);
}

std::string format_value(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (std::isnan(v)) return "NaN";
    constexpr double kLargestExact = 9007199254740992.0;  // 2^53: every integer below is exact
    if (v == std::floor(v) && std::abs(v) < kLargestExact) return std::to_string(static_cast<long long>(v));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace protocol
