// CORPUS overflow_32bit — keeps the table in signed 32-bit ints and clamps a sum that would not
// fit to INT_MAX, instead of wrapping modulo 2^32 as the contract says. Right on every small
// image; wrong once a corner sum passes 2^31 - 1 (3000x3000 all-255 reaches 2.3e9). The grader
// must say fail, which needs a large enough size: this entry's grade_args add 3000x3000.
#include <climits>
#include <cstdint>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int y = 0; y < in.height; ++y) {
        std::int32_t sum = 0;  // a row holds at most 8192 * 255: fits
        for (int x = 0; x < in.width; ++x) out.row(y)[x] = static_cast<std::uint32_t>(sum += in(x, y));
    }
    for (int y = 1; y < in.height; ++y) {
        const std::uint32_t* above = out.row(y - 1);
        std::uint32_t* dst = out.row(y);
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int x = 0; x < in.width; ++x) {
            const long long s = static_cast<long long>(dst[x]) + above[x];
            dst[x] = static_cast<std::uint32_t>(s > INT_MAX ? INT_MAX : s);  // BUG (deliberate): clamps, never wraps
        }
    }
}

}  // namespace integral_image
