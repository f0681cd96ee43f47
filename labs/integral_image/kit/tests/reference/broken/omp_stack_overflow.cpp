// Broken on purpose: cpu_openmp that keeps a 64 MiB scratch array of column sums on the stack,
// far past any thread's stack limit (8 MiB for the main thread on Linux, less for OpenMP's).
// Symptom the grader must show: CRASH (SIGSEGV), and the grader itself carries on.
// Replaces cpu_openmp.cpp.
#include <cstring>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, [[maybe_unused]] int threads) {
    constexpr int kMaxColumns = 1 << 24;
    volatile std::uint32_t column_sums[kMaxColumns];  // BUG: 64 MiB on the stack
    for (int x = 0; x < kMaxColumns; ++x) column_sums[x] = 0;
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t row_sum = 0;
        for (int x = 0; x < in.width; ++x) {
            row_sum += in(x, y);
            column_sums[x] = column_sums[x] + row_sum;
            out(x, y) = column_sums[x];
        }
    }
}

}  // namespace integral_image
