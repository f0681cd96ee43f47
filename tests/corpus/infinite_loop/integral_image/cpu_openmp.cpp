// CORPUS infinite_loop — the column pass waits for a flag that the row pass was meant to set but
// never does (it is set in a branch that is never taken). It spins forever without printing
// anything. The grader must kill it after --timeout seconds without progress: timeout.
#include <atomic>
#include <cstdint>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int threads) {
    std::atomic<bool> rows_done{false};
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t sum = 0;
        for (int x = 0; x < in.width; ++x) out.row(y)[x] = sum += in(x, y);
        if (y == in.height) rows_done.store(true);  // BUG (deliberate): y never equals height here
    }
    while (!rows_done.load()) {
    }
    for (int y = 1; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out.row(y)[x] += out.row(y - 1)[x];
}

}  // namespace integral_image
