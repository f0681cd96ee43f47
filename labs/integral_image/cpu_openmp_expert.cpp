// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// CPU, OpenMP — expert tier (optional challenge, bonus points): as fast as memory allows
// Changes vs cpu_openmp: yours to say here, as the other files do, with what it costs in bytes
//   per pixel, where it stops working, and what you read.
// The target: at least 4x faster than OpenCV's single call cv2.integral at 8192x8192, on a
//   16-core machine. The floor is 5 B/px: read each pixel once (1 B), write each sum once (4 B).
//   `./labkit bench integral_image --peers --student` times yours beside OpenCV.
#include <cstdint>

#include "integral_image.hpp"
#include "labkit/errors.hpp"

namespace integral_image {

void cpu_openmp_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int threads) {
    // TODO(step X1): measure first. Time your cpu-openmp at 4096 and 8192
    //   (./labkit grade integral_image --variants 'cpu-openmp*'). Count the bytes each of its
    //   passes moves to and from memory, then divide by the time: how far is it from your
    //   machine's memory bandwidth, and how many times does the table cross the bus? Remember
    //   that a store to a line that is not in cache first reads that line.
    //
    // TODO(step X2): a plan that writes the table once and never reads it back. Give each
    //   thread a band of whole rows. Which small thing must a band know about the rows above it
    //   before it can write its first row of the table? How many bytes is it, and how does a
    //   band compute its own share of it while reading only the image? Which band never needs to
    //   compute it? Pitfall: the team you get may be smaller than `threads`, and an image may
    //   have fewer rows than threads: every thread must still reach every barrier.
    //
    // TODO(step X3): from the bands' shares to each band's starting point: a prefix over the
    //   bands, for every column. It is tiny; how do you share it among threads so that no two
    //   of them write the same cache line (what does that ask of your buffer's alignment and of
    //   its row length)?
    //
    // TODO(step X4): each band writes its rows of the table. Keep one row of running column
    //   sums per thread (where does it live, and does it fit in L1 at 8192 columns?). For each
    //   row: one loop that adds the row to the column sums, one that turns them into the
    //   table's row. Write the first so the compiler vectorizes it (-fopt-info-vec says whether
    //   it did; what stops it?). The second is a prefix sum, a chain of dependent adds: is it
    //   your bottleneck on many cores? OpenMP 5.0 has a directive for exactly this loop.
    //
    // TODO(step X5, if your measurements justify it): the table is never read back. What do
    //   non-temporal (streaming) stores save here, in B/px, and what do they cost for a table
    //   that would fit in cache? They need aligned addresses, while the pitch may be anything,
    //   and they are weakly ordered: what must a thread do before the others may rely on them?
    //
    // One parallel region, with a static division of the rows; check 1x1, 1xN, Nx1 and more
    // threads than rows (the grader does). Then delete this throw.
    throw labkit::NotImplemented("cpu_openmp_expert (cpu_openmp_expert.cpp): optional challenge");
}

}  // namespace integral_image
