// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
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
    // TODO(step C1): one parallel region for both passes, with `threads` threads. Opening it
    //   once, not once per pass, saves starting the team twice.
    //
    // TODO(step C2): pass 1, a prefix sum along every row. Rows are independent: share them out
    //   with a worksharing loop. Think about:
    //   - the type of the running sum: the contract wraps modulo 2^32 like cpu_sequential, and a
    //     signed overflow would be undefined behaviour;
    //   - why pass 2 may only start once every row is finished, and what in your loop construct
    //     already guarantees that (or what you must add).
    //
    // TODO(step C3): pass 2, a prefix sum down every column. Do not give each thread whole
    //   columns walked top to bottom: each step would touch one 4-byte value of a 64-byte cache
    //   line, and neighbouring threads would fight over the same lines. Give each thread a strip
    //   of kStripWidth adjacent columns instead, and walk the strip row by row. Pitfalls: the
    //   last strip is narrower when the width is not a multiple of kStripWidth; an image 1 pixel
    //   wide still has one strip.
    //
    // Then delete this throw.
    throw labkit::NotImplemented("cpu_openmp (cpu_openmp.cpp)");
}

}  // namespace integral_image
