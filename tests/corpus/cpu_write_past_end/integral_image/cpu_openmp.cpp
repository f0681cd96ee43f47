// CORPUS cpu_write_past_end — an off-by-one: the row pass runs x up to and including width and
// stores the row total one element past the end of every row (and past the end of the whole
// output on the last row). The values inside the image are right. CPU outputs now have guard
// space like GPU outputs: the stray writes must be caught: fail.
#include <cstdint>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t sum = 0;
        std::uint32_t* dst = out.row(y);
        for (int x = 0; x <= in.width; ++x) {  // BUG (deliberate): <= writes dst[width]
            if (x < in.width) sum += in(x, y);
            dst[x] = sum;
        }
    }
    for (int y = 1; y < in.height; ++y) {
        const std::uint32_t* above = out.row(y - 1);
        std::uint32_t* dst = out.row(y);
        for (int x = 0; x < in.width; ++x) dst[x] += above[x];
    }
}

}  // namespace integral_image
