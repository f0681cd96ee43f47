// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 05 — Expert tier: every filter in one kernel, near the roofs (optional challenge, bonus points)
// Changes vs 04: you are no longer given a pipeline or a block shape. set_weights_expert()
//   receives the k x k weights (and, for a separable filter, its two factors) once per filter;
//   convolve_expert() must then fill `out` in ONE kernel launch, with no intermediate image in
//   global memory, for every filter, border and size the other steps handle.
// The roofs (section 5 of the handout): 8 B/px of memory (read each input once, write each output
//   once), and 2 k^2 FLOP/px for the direct sum or 4k for a separable one. 03 reaches about a
//   quarter of the copy bandwidth at k = 3 and a sixth of the FMA rate at k = 25; 04 moves 16 B/px.
//   Targets on an H100 at 8192^2: 80% of the copy bandwidth for the direct sum up to k = 7 and for
//   separable filters at any k; half of the FP32 FMA rate for the direct sum at k = 25.
// Cost, limits and reference: yours to write here, as the other files do (what it changes, what
//   it costs in bytes and FLOPs per pixel, where it stops working, and what you read).
// Ref (a starting point): PMPP 4th ed., chapter 7; V. Podlozhnyuk, "Image Convolution with CUDA",
//   NVIDIA 2007; V. Volkov, "Better performance at lower occupancy", GTC 2010.
#include "convolution.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace convolution {

// A plan that works (there are others).
//
// TODO(step 5a): where the weights live. The kernel will stage them in shared memory or keep them
//   in registers, so a __device__ array copied with cudaMemcpyToSymbolAsync (as 02 does for
//   __constant__) is enough. Measure before you choose __constant__: 03's handout section shows
//   many blocks sweeping a 2.5 KB constant array missing in the constant cache. Refuse a size the
//   arrays cannot hold.
//
// TODO(step 5b): why 03 is slow. Count, in 03's inner loop, the shared-memory loads per FMA (one)
//   and compare with what an SM delivers: 32 words of shared memory per clock against 128 FMA
//   lanes. The cure is register blocking: each thread computes a small patch of outputs (say 4
//   along x, one float4, and a few rows), loads a row of 4 + 2r inputs into registers once and
//   uses each of them for up to 4 FMAs (once per output of its row of the patch), and each weight
//   for every output of its patch. How many
//   shared loads per FMA does your patch need at k = 3 and at k = 25?
//
// TODO(step 5c): the direct kernel. A block tile a warp's 16-byte accesses wide (128 columns) and
//   a few dozen rows tall, staged with its halo into shared memory ONCE, with 16-byte global
//   loads wherever the view allows them (the data pointer and the pitch in bytes both multiples
//   of 16; otherwise float by float) and the border applied while staging, so the sums need no
//   border logic. Pitfalls: x0 - r is not a multiple of 4 when r is not; start the staged columns
//   a few floats further left so that both the global loads and each thread's reads of its row
//   are aligned. Every thread reaches every barrier, also at the ragged right and bottom edges.
//   Never read or write past the image's width (the grader checks the row padding).
//
// TODO(step 5d): make k a template parameter. With k known at compile time the tap loops unroll,
//   the patch's inputs, weights and sums become registers (an array indexed by a run-time value
//   goes to local memory: check `nvcc -Xptxas -v` for spills and stack frames), and the tile's
//   shape is a constant. Compile a few sizes; a size you did not compile can run as the next
//   size up with its weights padded by zeros (why is that still correct, and within the
//   tolerance?). Mind the instruction cache: a k = 25 body fully unrolled is 10 000 FMAs.
//
// TODO(step 5e): the separable kernel, in the same single launch. A block walks down a strip of
//   rows: stage a chunk of input rows (with the x halo), do the row pass from it into a shared
//   buffer of row sums (NOT clamped), then the column pass from that buffer straight to `out`.
//   The buffer also keeps the 2r rows of sums above the chunk, carried from one chunk to the
//   next, so each row sum is computed once per strip, not once per output row. Pitfalls: the row
//   sums of rows outside the image follow the border along y (section 8 of the handout); each
//   barrier's race (which buffer, written by whom, read by whom?), also when k = 1 (no halo).
//
// TODO(step 5f): measure, at 8192^2 and every k. The grader prints this variant's % of copy
//   bandwidth and % of the FMA rate (counted at 4k FLOP/px when the filter is separable). Which
//   roof does each k meet, and what does the profiler say limits the others: bytes in flight
//   (blocks per SM, loads issued before the first use), instruction issue (loads and address
//   arithmetic per FMA), or shared-memory bank conflicts?

void set_weights_expert([[maybe_unused]] const float* weights, [[maybe_unused]] const float* row,
                        [[maybe_unused]] const float* column, [[maybe_unused]] int size,
                        [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("set_weights_expert (05_expert.cu): optional challenge");
}

void convolve_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                     [[maybe_unused]] bool separable, [[maybe_unused]] Border border,
                     [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("convolve_expert (05_expert.cu): optional challenge");
}

}  // namespace convolution
