// CORPUS constexpr_over_ops_limit — a correct integral image, plus one constexpr evaluation of
// about 8 million operations: under GCC's own limit (2^25 operations, seconds of compile each)
// but over the kit's for a submission (-fconstexpr-ops-limit=2^22, build.CONSTEXPR_OPS_LIMIT).
// The compiler must stop at the kit's limit, in a fraction of a second: build-error, with the
// compiler's message naming the limit. Without the limit, the file compiles and passes.
#include <cstdint>

#include "integral_image.hpp"

namespace integral_image {
namespace {

// Two loops of 200,000 steps (GCC also stops one loop at 262,144 steps, by default).
constexpr std::uint64_t spin() {
    std::uint64_t s = 0;
    for (int i = 0; i < 2; ++i)
        for (std::uint64_t j = 0; j < 200000; ++j) s += j ^ s;
    return s;
}
constexpr std::uint64_t kSeed = spin();
static_assert(kSeed != 1);

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
#pragma omp parallel for num_threads(threads)
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t sum = 0;
        for (int x = 0; x < in.width; ++x) out.row(y)[x] = sum += in.row(y)[x];
    }
    for (int y = 1; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out.row(y)[x] += out.row(y - 1)[x];
}

}  // namespace integral_image
