// starter: generates labs/convolution/cpu_openmp.cpp
// starter: step the two pixel loops collapsed and shared among threads; static vs dynamic schedule
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
//> #include "labkit/errors.hpp"

namespace convolution {
// starter: prompt
//>
//> void cpu_openmp([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] const float* weights,
                //> [[maybe_unused]] int size, [[maybe_unused]] Border border, [[maybe_unused]] int threads,
                //> [[maybe_unused]] Schedule schedule) {
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
    //> throw labkit::NotImplemented("cpu_openmp (cpu_openmp.cpp)");
//> }
// starter: solution
namespace {

// Pixels per grab of the dynamic schedule. Each grab is an atomic increment of a counter every
// thread shares; 1024 pixels are at least 9 216 multiply-adds (k = 3), enough to hide it, and an
// 8192^2 image still has 65 536 chunks to balance.
constexpr int kDynamicChunk = 1024;
// A chunk size below 1 asks the OpenMP runtime for its default: for static, one contiguous
// block of iterations per thread.
constexpr int kDefaultChunk = 0;

}  // namespace

void cpu_openmp(Input in, Output out, const float* weights, int size, Border border, int threads, Schedule schedule) {
    const int r = size / 2;
    // Static is the natural choice: every pixel costs the same k^2 multiply-adds (the border
    // pixels differ only in their index arithmetic), so equal contiguous blocks balance well and
    // each thread walks its own rows with the best cache locality, at no scheduling cost.
    // Dynamic pays a shared counter per chunk for balancing that only helps when threads are
    // slowed unevenly (other processes, SMT siblings, frequency differences): the lab measures both.
    // schedule(runtime) reads this thread's run-sched-var, so one loop serves both choices.
    if (schedule == Schedule::dynamic_chunks)
        omp_set_schedule(omp_sched_dynamic, kDynamicChunk);
    else
        omp_set_schedule(omp_sched_static, kDefaultChunk);
#pragma omp parallel for collapse(2) num_threads(threads) schedule(runtime)
    for (int y = 0; y < in.height; ++y) {
        for (int x = 0; x < in.width; ++x) {
            float sum = 0.0f;
            for (int dy = -r; dy <= r; ++dy) {
                const int sy = border_index(y + dy, in.height, border);
                if (sy < 0) continue;  // a row of the zero border adds nothing
                const float* src = in.row(sy);
                const float* w = weights + (dy + r) * size + r;  // w[dx] = K(dx, dy)
                for (int dx = -r; dx <= r; ++dx) {
                    const int sx = border_index(x + dx, in.width, border);
                    if (sx >= 0) sum += w[dx] * src[sx];
                }
            }
            out(x, y) = clamp_pixel(sum);
        }
    }
}
// starter: end

}  // namespace convolution
