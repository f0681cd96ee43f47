// The example lab's variant table: the OpenMP version, then the one GPU kernel.
#include "tables.hpp"

namespace negation {
namespace {

using NegVariant = protocol::Variant<Negation>;

// snippet: table
const NegVariant kRows[] = {
    {"cpu-openmp", "rows shared among threads",
     [](Input in, Output out, const protocol::NoParams&, int threads) { cpu_openmp(in, out, threads); }, {}},
#if LABKIT_HAVE_CUDA
    {"gpu-01-negate", "one thread per pixel, 16x16 blocks", {},
     [](Input in, Output out, const protocol::NoParams&, GpuContext& ctx) { negate(in, out, ctx); }},
#endif
};
// snippet: end

}  // namespace

std::span<const NegVariant> variants() { return kRows; }

}  // namespace negation
