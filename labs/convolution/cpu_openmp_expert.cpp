// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// CPU, OpenMP — expert tier (optional challenge, bonus points): every filter at the cores' pace
// Changes vs cpu_openmp: yours to say here, as the other files do, with what it costs in bytes
//   and FLOP per pixel, where it stops working, and what you read.
// The target: a Gaussian at least as fast as OpenCV's cv2.GaussianBlur (float32, the mirror
//   border, the same threads) on a 16-core machine, and every other filter as fast as you can
//   make it. The reference solution reaches it at k = 3 and 5 on 8192x8192; at larger k it has
//   not been compared in one run, and the kit's build targets baseline x86-64 (SSE2), while
//   OpenCV picks AVX2 code at run time (measurements/results-handwritten-2026-11-26.md). The grader
//   leaves out CPU calls over 2 GFLOP: it times this variant at 4096x4096 for every Gaussian, at
//   8192x8192 up to k = 5.
//   `./labkit bench convolution --peers --student --variants 'cpu-openmp*' --sizes 4096,8192`
//   times yours beside OpenCV.
#include <omp.h>

#include "convolution.hpp"
#include "labkit/errors.hpp"

namespace convolution {

void cpu_openmp_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] const float* weights,
                       [[maybe_unused]] const float* row, [[maybe_unused]] const float* column, [[maybe_unused]] int size,
                       [[maybe_unused]] Border border, [[maybe_unused]] int threads) {
    // TODO(step X1): measure first. Time your cpu-openmp at 1024 for k = 3 and k = 25 (./labkit
    //   grade convolution --variants 'cpu-openmp*' --perf-sizes 1024 --perf-params k=3,k=25; the 2D
    //   sum at k = 25 is 1250 FLOP a pixel, so the grader times no larger image of it on the CPU).
    //   Divide the FLOP (2 k^2 per pixel) and the bytes (8 per pixel) by the time: which limit is
    //   it near, if any? Compile your file with -fopt-info-vec-missed (or read its assembly): did
    //   the tap loop vectorize, and what stopped it?
    //
    // TODO(step X2): the border once per row, never per tap. If X1 found a branch in the tap loop,
    //   where does it come from, and must it be there for every pixel? Copy an input row into a
    //   buffer r wider on each side, the border applied to those 2r columns; along y, a border is
    //   only a choice of which row to read (and a row of the zero border adds nothing). How many
    //   times must each input row be copied, and which rows need no copy at all?
    //
    // TODO(step X3): the tap loops. Put the pixel loop outside (`#pragma omp simd`) and the taps
    //   inside. With k a compile-time constant (a template, one function per k picked from a
    //   table, not a switch in the pixel loop) the taps can unroll: check that they did for
    //   k = 25 too (a compiler unrolls only so far). Then time k = 25: one sum of k dependent
    //   adds per output waits k times the add's latency; what do several partial sums cost you,
    //   given the contract's tolerance? Are the weights reloaded for every vector of outputs?
    //
    // TODO(step X4): separable filters. `row` and `column` are given for them (both nullptr
    //   otherwise): a row pass and a column pass, 4k FLOP per pixel instead of 2 k^2. Where does
    //   the intermediate live: a second image (8 more B/px), or a ring of k rows of row sums per
    //   thread that stays in cache? Pitfalls: the intermediate is not clamped (reflection question
    //   7 asks why); time 2048 against 2000 columns: when k rows a power of two of bytes apart are
    //   read at once, which cache sets do they land in, and how many ways has your L1? A Gaussian's
    //   taps are symmetric: what does that save?
    //
    // TODO(step X5): the threads. Give each thread one band of whole rows, in one parallel
    //   region: neighbouring output rows share k - 1 input rows. How many bytes is a ring of
    //   k = 25 rows at 8192 columns, and which cache holds it? If it does not fit, cut the band
    //   into strips of columns: how wide, and what does a strip compute twice? Pitfalls: the
    //   team you get may be smaller than `threads`, and an image may have fewer rows than threads.
    //
    // Check 1x1, 1xN, Nx1, primes, k larger than the image, every border, images wider than your
    // strips (the grader's wide images use one filter only), and time the non-separable
    // `--perf-params disk:25` too. Then delete this throw.
    throw labkit::NotImplemented("cpu_openmp_expert (cpu_openmp_expert.cpp): optional challenge");
}

}  // namespace convolution
