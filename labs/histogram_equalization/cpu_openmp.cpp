// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// CPU, OpenMP — histogram equalization with all cores
// Changes vs cpu_sequential: the histogram is counted in one private histogram per thread, merged
//   once; the LUT (256 entries) is computed sequentially; the map is a parallel loop over rows.
// Cost: 1 B/px read for the histogram, 1 B/px read + 1 B/px written for the map.
// Limits: memory-bound; the merge is serial in the number of threads (cheap at 256 bins).
// Ref: Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3; OpenMP 5.x.
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/errors.hpp"

namespace histogram_equalization {

void cpu_openmp([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int threads) {
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
    throw labkit::NotImplemented("cpu_openmp (cpu_openmp.cpp)");
}

}  // namespace histogram_equalization
