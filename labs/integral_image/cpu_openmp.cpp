// CPU, OpenMP — integral image with all cores
// Changes vs cpu_sequential: two passes. Pass 1 scans every row (rows are independent, so they
//   are shared out among the threads). Pass 2 adds each row to the one below it, column by
//   column; each thread owns a strip of kStripWidth adjacent columns and walks it top to bottom,
//   so it reads and writes whole cache lines and never shares one with another thread.
// Cost: 2 adds per pixel; pass 1 reads 1 B/px and writes 4 B/px, pass 2 reads 8 B/px (this row
//   and the previous one, the latter usually still in cache) and writes 4 B/px.
// Limits: memory-bound; pass 2 has ceil(W / kStripWidth) independent strips to share out, so
//   very narrow images use few threads in it.
// Ref: Crow 1984 (summed-area tables); OpenMP 5.x, worksharing loops.
#include <cstddef>
#include <cstdint>

#include "integral_image.hpp"
#include "labkit/errors.hpp"

// [[maybe_unused]] only silences "never used" warnings until your code uses the name; delete it then.

namespace integral_image {
namespace {

// 64 uint32 = 256 bytes = four 64-byte cache lines: a strip row is mostly whole lines, and with
// a static schedule (contiguous strips per thread) two threads can share a line only where
// their runs of strips meet. 64 adds per row are also enough for the compiler to vectorize.
[[maybe_unused]] constexpr int kStripWidth = 64;

}  // namespace

void cpu_openmp([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int threads) {
    // TODO(step C1): open one parallel region for both passes (~2 lines):
    //   #pragma omp parallel num_threads(threads)
    //   { ...the two loops below... }
    //
    // TODO(step C2): pass 1, row prefix sums (~9 lines). Inside the region:
    //   #pragma omp for schedule(static)
    //   for (int y = 0; y < in.height; ++y) { std::uint32_t sum = 0;
    //       for (int x = 0; x < in.width; ++x) { sum += in(x, y); out(x, y) = sum; } }
    //   The sum must be std::uint32_t: it wraps modulo 2^32 exactly like cpu_sequential (a signed
    //   int would overflow, which is undefined behaviour). Use in.row(y) / out.row(y) pointers
    //   for speed if you like.
    //   The implicit barrier at the end of an `omp for` is what lets pass 2 read finished rows.
    //
    // TODO(step C3): pass 2, column prefix sums in strips (~10 lines):
    //   strips = ceil(in.width / kStripWidth);
    //   #pragma omp for schedule(static)
    //   for each strip: x_begin = strip * kStripWidth, x_end = min(x_begin + kStripWidth, width);
    //       for (int y = 1; y < in.height; ++y)
    //           for (int x = x_begin; x < x_end; ++x) out(x, y) += out(x, y - 1);
    //   Walking a strip row by row touches whole cache lines; one column at a time would touch
    //   one 4-byte value per 64-byte line.
    //
    // Then delete this throw.
    throw labkit::NotImplemented("cpu_openmp (cpu_openmp.cpp)");
}

}  // namespace integral_image
