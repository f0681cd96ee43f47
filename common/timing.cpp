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
    return s;
}

}  // namespace labkit
