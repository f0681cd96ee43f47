// CORPUS unwritten_output — a classic slip: the table is computed into a local buffer that is
// never copied to `out`, so the output still holds the grader's poison. The grader must say
// fail (not pass, not crash), naming the first element never written.
#include <cstdint>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int threads) {
    std::vector<std::uint32_t> table(static_cast<std::size_t>(in.width) * in.height);
    const auto at = [&](int x, int y) -> std::uint32_t& { return table[static_cast<std::size_t>(y) * in.width + x]; };
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t sum = 0;
        for (int x = 0; x < in.width; ++x) at(x, y) = sum += in(x, y);
    }
    for (int y = 1; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) at(x, y) += at(x, y - 1);
    (void)out;  // BUG (deliberate): the table is never copied into out
}

}  // namespace integral_image
