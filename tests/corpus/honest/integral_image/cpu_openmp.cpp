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

namespace integral_image {
namespace {

// 64 uint32 = 256 bytes = four 64-byte cache lines: a strip row is mostly whole lines, and with
// a static schedule (contiguous strips per thread) two threads can share a line only where
// their runs of strips meet. 64 adds per row are also enough for the compiler to vectorize.
constexpr int kStripWidth = 64;

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
    const int width = in.width;
    const int height = in.height;
    const int strips = (width + kStripWidth - 1) / kStripWidth;
#pragma omp parallel num_threads(threads)
    {
        // Pass 1: row prefix sums. uint32 arithmetic wraps modulo 2^32, as the contract says.
#pragma omp for schedule(static)
        for (int y = 0; y < height; ++y) {
            const std::uint8_t* src = in.row(y);
            std::uint32_t* dst = out.row(y);
            std::uint32_t sum = 0;
            for (int x = 0; x < width; ++x) {
                sum += src[x];
                dst[x] = sum;
            }
        }
        // The implicit barrier at the end of the loop above: every row is done before pass 2.

        // Pass 2: column prefix sums, one strip of columns per iteration.
#pragma omp for schedule(static)
        for (int strip = 0; strip < strips; ++strip) {
            const int x_begin = strip * kStripWidth;
            const int x_end = x_begin + kStripWidth < width ? x_begin + kStripWidth : width;
            for (int y = 1; y < height; ++y) {
                const std::uint32_t* above = out.row(y - 1);
                std::uint32_t* dst = out.row(y);
                for (int x = x_begin; x < x_end; ++x) dst[x] += above[x];
            }
        }
    }
}

}  // namespace integral_image
