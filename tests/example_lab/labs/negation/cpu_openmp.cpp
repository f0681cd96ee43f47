// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// CPU, OpenMP — the negative with all cores
// Changes vs cpu_sequential: the rows are shared among the threads (a static schedule: every row
//   costs the same).
// Cost: 1 B/px read, 1 B/px written: memory-bound.
#include "negation.hpp"
#include "labkit/errors.hpp"

namespace negation {

void cpu_openmp([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int threads) {
    // TODO(step 1): out(x, y) = kWhite - in(x, y), the rows shared among `threads` threads by
    //   an OpenMP worksharing loop. Then delete this throw.
    throw labkit::NotImplemented("cpu_openmp (cpu_openmp.cpp)");
}

}  // namespace negation
