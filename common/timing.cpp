#include "labkit/timing.hpp"

#include <algorithm>

namespace labkit {

Stats summarize(std::vector<double> samples) {
    Stats s;
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    s.runs = static_cast<int>(n);
    s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    s.min = samples.front();
    s.max = samples.back();
    s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
    // Quartiles by linear interpolation between the sorted samples (numpy's default).
    const auto quantile = [&](double q) {
        const double at = q * static_cast<double>(n - 1);
        const auto lo = static_cast<std::size_t>(at);
        const std::size_t hi = std::min(lo + 1, n - 1);
        return samples[lo] + (at - static_cast<double>(lo)) * (samples[hi] - samples[lo]);
    };
    constexpr double kLowerQuartile = 0.25, kUpperQuartile = 0.75;
    s.noise = s.median > 0 ? (quantile(kUpperQuartile) - quantile(kLowerQuartile)) / s.median : 0;
    return s;
}

}  // namespace labkit
