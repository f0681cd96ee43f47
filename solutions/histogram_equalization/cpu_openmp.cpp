// starter: generates labs/histogram_equalization/cpu_openmp.cpp
// starter: step private histograms per thread, merged; the map in parallel
// CPU, OpenMP — histogram equalization with all cores
// starter: prompt
// Changes vs cpu_sequential: the histogram is counted in one private histogram per thread, merged
//   once; the LUT (256 entries) is computed sequentially; the map is a parallel loop over rows.
// Cost: 1 B/px read for the histogram, 1 B/px read + 1 B/px written for the map.
// starter: solution
// Changes vs cpu_sequential: the histogram is counted in one private histogram per thread
//   (no shared counter, so no atomics and no false sharing), merged once; the LUT is 256
//   entries (sequential, negligible); the map is an embarrassingly parallel loop over rows.
// Cost: 1 B/px read for the histogram, 1 B/px read + 1 B/px written for the map; threads x 256
//   counters merged.
// starter: end
// Limits: memory-bound; the merge is serial in the number of threads (cheap at 256 bins).
// Ref: Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3; OpenMP 5.x.
// starter: solution
#include <omp.h>

#include <array>
// starter: end
#include <cstdint>
// starter: solution
#include <vector>
// starter: end

#include "histogram_equalization.hpp"
//> #include "labkit/errors.hpp"

namespace histogram_equalization {

// starter: prompt
//> void cpu_openmp([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int threads) {
    // TODO(step C1): the histogram. One shared array of counters would need atomics (slow) or
    //   suffer false sharing; give each thread its own 256 counters instead, count with a
    //   worksharing loop over rows, and merge them afterwards. Pitfall: how large can one count
    //   get, and does your counter type hold it?
    //
    // TODO(step C2): the CDF and the LUT, as the header's contract says, in 64-bit integers:
    //   cdf_min, the rounded formula, 0 below the first non-zero bin, and the single-valued
    //   image that maps to itself. Check yourself against the handout's 8x8 example first.
    //
    // TODO(step C3): the map, out(x, y) = lut[in(x, y)], rows shared out among the threads.
    //
    // Then delete this throw.
    //> throw labkit::NotImplemented("cpu_openmp (cpu_openmp.cpp)");
// starter: solution
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
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out(x, y) = lut[in(x, y)];
// starter: end
}

}  // namespace histogram_equalization
