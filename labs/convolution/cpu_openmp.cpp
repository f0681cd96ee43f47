// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// CPU, OpenMP — 2D convolution with all cores
// Changes vs cpu_sequential: the two pixel loops are collapsed into one iteration space of W x H
//   pixels and shared out among the threads; every pixel is independent (it reads the input and
//   writes only itself), so no thread waits for another and nothing is shared but the input.
// Cost: 2 k^2 flops per pixel (k^2 multiply-adds); k^2 reads per pixel, nearly all from cache
//   (a k-row band of the image is reused by the neighbouring pixels); 4 B/px written.
// Limits: scalar code: every tap goes through border_index (a branch), and the float sum is not
//   reassociated, so the compiler does not vectorize the inner loop.
// Ref: PMPP 4th ed., chapter 7 (convolution); OpenMP 5.x, worksharing loops (collapse, schedule).
#include <omp.h>

#include "convolution.hpp"
#include "labkit/errors.hpp"

namespace convolution {

void cpu_openmp([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] const float* weights,
                [[maybe_unused]] int size, [[maybe_unused]] Border border, [[maybe_unused]] int threads,
                [[maybe_unused]] Schedule schedule) {
    // TODO(step C1): the sum for one output pixel, exactly as the header's formula says: every
    //   tap (dx, dy) in -r..r reads the input at the position border_index gives for its column
    //   and for its row, times its weight; the sum is a float; the pixel is clamp_pixel(sum).
    //   Pitfalls: border_index returns -1 for the zero border, and -1 is not an index (that tap
    //   adds nothing); the weights are row-major with dy picking the row; correlation, so no
    //   flip; the views are pitched, so index with in(x, y) or in.row(y), never y * width + x.
    //   A 3x2 image with k = 25 must work: send every index through border_index.
    //
    // TODO(step C2): the two pixel loops, y outside and x inside, collapsed into one iteration
    //   space (collapse(2)) and shared among `threads` threads (num_threads). Pitfall: a
    //   parallel loop over rows alone has a single iteration for a 4099x1 image.
    //
    // TODO(step C3): the schedule: `schedule` asks for static or dynamic chunks. One loop can
    //   serve both (schedule(runtime), set before the loop with omp_set_schedule), or you can
    //   write two pragmas. With collapse(2) a chunk counts pixels, not rows: choose a dynamic
    //   chunk size, name it as a constant and give its reason (a chunk too small makes the
    //   threads fight over the shared counter; one too large leaves some threads idle at the
    //   end). Write a comment saying which schedule you expect to win here and why, then measure
    //   both (handout, docs/labs/convolution.md).
    //
    // Then delete this throw.
    throw labkit::NotImplemented("cpu_openmp (cpu_openmp.cpp)");
}

}  // namespace convolution
