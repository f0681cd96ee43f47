// CORPUS ignores_threads — never starts a team: the `parallel` is missing, as it often is in a
// first attempt, so every thread count runs on one thread. The output is right and the times are
// honest (it gains nothing: its best time over the thread counts is scored), but its thread
// sweep claims timings "with 2 threads" that ran on one. The grader must pass it, unflagged, with
// a note that it kept about one thread busy when given more.
#include <cstdint>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int /*threads*/) {
#pragma omp for schedule(static)  // MISTAKE (deliberate): a worksharing loop outside any parallel region
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t sum = 0;
        for (int x = 0; x < in.width; ++x) out.row(y)[x] = sum += in(x, y);
    }
    for (int y = 1; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out.row(y)[x] += out.row(y - 1)[x];
}

}  // namespace integral_image
