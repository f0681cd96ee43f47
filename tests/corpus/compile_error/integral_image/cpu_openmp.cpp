// CORPUS compile_error — not an attack, the commonest broken submission: a typo (an undeclared
// name and a missing semicolon). The grader must report build-error for every variant, with the
// compiler's first error, and go on with the next submission.
#include <cstdint>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int threads) {
#pragma omp parallel for num_threads(threads)
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t sum = 0
        for (int x = 0; x < in.width; ++x) out.row(y)[x] = sum += in.row(y)[x];
    }
    for (int y = 1; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out.row(y)[x] += out.row(y - 1)[x] * undeclared_scale;
}

}  // namespace integral_image
