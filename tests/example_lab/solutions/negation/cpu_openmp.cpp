// starter: generates labs/negation/cpu_openmp.cpp
// starter: step rows shared among threads
// CPU, OpenMP — the negative with all cores
// Changes vs cpu_sequential: the rows are shared among the threads (a static schedule: every row
//   costs the same).
// Cost: 1 B/px read, 1 B/px written: memory-bound.
#include "negation.hpp"
//> #include "labkit/errors.hpp"

namespace negation {

// starter: prompt
//> void cpu_openmp([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int threads) {
    // TODO(step 1): out(x, y) = kWhite - in(x, y), the rows shared among `threads` threads by
    //   an OpenMP worksharing loop. Then delete this throw.
    //> throw labkit::NotImplemented("cpu_openmp (cpu_openmp.cpp)");
// starter: solution
void cpu_openmp(Input in, Output out, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int y = 0; y < in.height; ++y) {
        // A row through plain pointers, which the compiler vectorizes.
        const std::uint8_t* from = &in(0, y);
        std::uint8_t* to = &out(0, y);
        for (int x = 0; x < in.width; ++x) to[x] = static_cast<std::uint8_t>(kWhite - from[x]);
    }
// starter: end
}

}  // namespace negation
