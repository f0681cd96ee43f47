// CORPUS replaces_steady_clock — correct code that also defines std::chrono::steady_clock::now()
// (libstdc++'s std::chrono::_V2::steady_clock). The runner is linked with this file, so its own
// definition wins over libstdc++'s, and every timer in the runner process reads a fake clock
// that advances one microsecond per call: each timed call "takes" a microsecond or two. The
// grader must not reward it: it measures the time itself, or flags the variant for review.
#include <atomic>
#include <chrono>
#include <cstdint>

#include "integral_image.hpp"

namespace std::chrono::inline _V2 {

steady_clock::time_point steady_clock::now() noexcept {
    static std::atomic<std::int64_t> fake_ns{1'000'000'000};
    return time_point(duration(fake_ns.fetch_add(1000)));  // CHEAT (deliberate): 1 us per call
}

}  // namespace std::chrono::inline _V2

namespace integral_image {

void cpu_openmp(Input in, Output out, int threads) {
    constexpr int kStrip = 64;
    const int strips = (in.width + kStrip - 1) / kStrip;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int y = 0; y < in.height; ++y) {
            std::uint32_t sum = 0;
            for (int x = 0; x < in.width; ++x) out.row(y)[x] = sum += in(x, y);
        }
#pragma omp for schedule(static)
        for (int s = 0; s < strips; ++s) {
            const int x0 = s * kStrip, x1 = x0 + kStrip < in.width ? x0 + kStrip : in.width;
            for (int y = 1; y < in.height; ++y)
                for (int x = x0; x < x1; ++x) out.row(y)[x] += out.row(y - 1)[x];
        }
    }
}

}  // namespace integral_image
