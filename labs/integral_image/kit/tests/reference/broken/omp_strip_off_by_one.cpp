// Broken on purpose: cpu_openmp whose column pass stops one column short in the last strip.
// Symptom the grader must show: FAIL, first mismatch in the last column (x = width - 1, y = 1),
// on every image whose last column is not all zeros. Replaces cpu_openmp.cpp.
#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int threads) {
    constexpr int kStripWidth = 64;
    const int strips = (in.width + kStripWidth - 1) / kStripWidth;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int y = 0; y < in.height; ++y) {
            std::uint32_t sum = 0;
            for (int x = 0; x < in.width; ++x) out(x, y) = sum += in(x, y);
        }
#pragma omp for schedule(static)
        for (int strip = 0; strip < strips; ++strip) {
            const int x_begin = strip * kStripWidth;
            const int x_end = x_begin + kStripWidth < in.width ? x_begin + kStripWidth : in.width - 1;  // BUG
            for (int y = 1; y < in.height; ++y)
                for (int x = x_begin; x < x_end; ++x) out(x, y) += out(x, y - 1);
        }
    }
}

}  // namespace integral_image
