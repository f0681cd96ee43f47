// Broken on purpose: cpu_openmp that hands rows from thread to thread with "row done" flags, and
// forgets to set them. Every thread spins on the flag of the row above, forever.
// Symptom the grader must show: TIMEOUT (no progress), then it goes on with the next variant.
// Replaces cpu_openmp.cpp.
#include <atomic>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int threads) {
    std::vector<std::atomic<bool>> row_done(static_cast<std::size_t>(in.height));
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t sum = 0;
        for (int x = 0; x < in.width; ++x) out(x, y) = sum += in(x, y);
        if (y > 0) {
            while (!row_done[y - 1].load()) {
            }  // BUG: nobody ever stores true
            for (int x = 0; x < in.width; ++x) out(x, y) += out(x, y - 1);
        }
    }
}

}  // namespace integral_image
