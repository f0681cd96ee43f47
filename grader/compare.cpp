#include "compare.hpp"

#include <cstdio>

#include "labkit/image_io.hpp"

namespace grader {

void save_rgb(const std::string& path, const std::vector<std::uint8_t>& rgb, int width, int height) {
    labkit::save_png_rgb(path, rgb.data(), width, height);
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

}  // namespace grader
