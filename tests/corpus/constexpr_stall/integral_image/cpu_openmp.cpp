// CORPUS constexpr_stall — 400 constexpr evaluations of about 3 million operations each, every
// one under the kit's -fconstexpr-ops-limit: together a minute or more of compile that still
// succeeds, while the next submissions wait (at GCC's own limit, 400 of them take half an
// hour). The limit on a submission's compile (--compile-timeout; 3 s in this entry's grade_args,
// to keep the test short) must stop it: build-error saying so, seconds after it started.
#include <cstdint>
#include <utility>

#include "integral_image.hpp"

namespace integral_image {
namespace {

constexpr std::uint64_t spin(std::uint64_t n) {
    std::uint64_t s = 0;
    for (std::uint64_t i = 0; i < n; ++i) s += i ^ n;
    return s;
}
// A different argument each: GCC keeps the result of a constexpr call with the same arguments.
template <int K>
constexpr std::uint64_t kStep = spin(120000 + K);
template <int... K>
constexpr std::uint64_t total(std::integer_sequence<int, K...>) {
    return (kStep<K> + ...);
}
static_assert(total(std::make_integer_sequence<int, 400>{}) != 1);

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
