// CORPUS he_skips_last_row (Lab 2) — the solution's histogram equalization with an off-by-one in
// the map: the last row of the output is never written (y < height - 1). The histogram and the
// LUT are right. The grader must fail it, naming an element never written.
// CPU, OpenMP — histogram equalization with all cores
// Changes vs cpu_sequential: the histogram is counted in one private histogram per thread
//   (no shared counter, so no atomics and no false sharing), merged once; the LUT is 256
//   entries (sequential, negligible); the map is an embarrassingly parallel loop over rows.
// Cost: 1 B/px read for the histogram, 1 B/px read + 1 B/px written for the map; threads x 256
//   counters merged.
// Limits: memory-bound; the merge is serial in the number of threads (cheap at 256 bins).
// Ref: Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3; OpenMP 5.x.
#include <omp.h>

#include <array>
#include <cstdint>
#include <vector>

#include "histogram_equalization.hpp"

namespace histogram_equalization {

void cpu_openmp(Input in, Output out, int threads) {
    std::vector<std::array<std::uint64_t, kLevels>> local(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
    {
        auto& mine = local[static_cast<std::size_t>(omp_get_thread_num())];
        mine.fill(0);
#pragma omp for schedule(static)
        for (int y = 0; y < in.height; ++y)
            for (int x = 0; x < in.width; ++x) ++mine[in(x, y)];
    }
    std::array<std::uint64_t, kLevels> cdf{};
    std::uint64_t running = 0;
    for (int v = 0; v < kLevels; ++v) {
        for (const auto& h : local) running += h[v];
        cdf[v] = running;
    }
    const std::uint64_t pixels = static_cast<std::uint64_t>(in.width) * in.height;
    std::uint64_t cdf_min = 0;
    for (int v = 0; v < kLevels && cdf_min == 0; ++v) cdf_min = cdf[v];
    std::array<std::uint8_t, kLevels> lut{};
    const std::uint64_t span = pixels - cdf_min;  // 0 for a single-valued image: it maps to itself
    for (int v = 0; v < kLevels; ++v)
        lut[v] = span == 0 ? static_cast<std::uint8_t>(v)
                 : cdf[v] == 0 ? 0
                               : static_cast<std::uint8_t>(((cdf[v] - cdf_min) * (kLevels - 1) + span / 2) / span);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int y = 0; y < in.height - 1; ++y)  // BUG (deliberate): the last row is never mapped
        for (int x = 0; x < in.width; ++x) out(x, y) = lut[in(x, y)];
}

}  // namespace histogram_equalization
