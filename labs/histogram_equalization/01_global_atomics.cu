// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 01 — Histogram with global atomics
// Changes vs the CPU: one thread per pixel, each adding 1 to its bin of the histogram in global
//   memory with atomicAdd; the atomics make concurrent increments of one bin correct.
// Cost: 1 B/px read, one global atomic per pixel. Atomics on the same address serialize in the
//   L2: a uniform image spreads them over 256 addresses, a white image puts all of them on one.
// Limits: contention: the time grows with the share of the most frequent value.
// Experiment (1c), padded bins: the same kernel counting into 256 counters 128 bytes apart (one
//   L2 line each, where the 256 bins of hist share eight lines), then one block copying them into
//   hist. It asks whether atomics on different words of one line wait for each other; the
//   handout's measured answer says. Costs a 32 KiB memset and a second tiny kernel per call.
// Ref: PMPP 4th ed., chapter 9 (parallel histogram), sections 9.1-9.3.
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {
namespace {

// Thread i counts pixel i (row-major over the image, which may be pitched).
[[maybe_unused]] __global__ void histogram_global_kernel([[maybe_unused]] Input in, [[maybe_unused]] std::uint32_t* hist) {
    // TODO(step 1a): find this thread's pixel from its global index (row and column: the image
    //   may be pitched, so the index is not an offset into memory) and count it with one
    //   atomicAdd. Pitfall: the last block has threads past the last pixel.
}


[[maybe_unused]] __global__ void histogram_padded_kernel([[maybe_unused]] Input in,
                                                         [[maybe_unused]] std::uint32_t* counters) {
    // TODO(step 1c, experiment): step 1a's kernel, counting value v into counters[v * stride],
    //   where the stride, in counters, puts each counter on a 128-byte line of its own (a named
    //   constant worked out from the line's bytes and a counter's, not a bare number).
}

[[maybe_unused]] __global__ void gather_padded_kernel([[maybe_unused]] const std::uint32_t* counters,
                                                      [[maybe_unused]] std::uint32_t* hist) {
    // TODO(step 1c): one thread per bin adds its padded counter into hist (+=, the contract of
    //   every histogram function in the header, even though the kit hands you a zeroed hist).
}

}  // namespace

void histogram_global_atomics([[maybe_unused]] Input in, [[maybe_unused]] std::uint32_t* hist,
                              [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 1b): launch one thread per pixel in blocks of tuning.block_size, on ctx.stream,
    //   and check the launch at once (CUDA_CHECK_LAUNCH). Pitfall: an 8192^2 image has more
    //   pixels than an int can count comfortably in products; an empty image launches nothing.
    //   Then delete the throw.
    throw labkit::NotImplemented("histogram_global_atomics (01_global_atomics.cu)");
}

void histogram_global_atomics_padded([[maybe_unused]] Input in, [[maybe_unused]] std::uint32_t* hist,
                                     [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 1c, experiment): take the padded counters from the workspace
    //   (ctx.workspace->get<std::uint32_t>(PipelineScratch::padded_counters, n): never cudaMalloc
    //   while the grader's clock runs), zero them on ctx.stream, launch the padded kernel as in
    //   step 1b, then the gather with one thread per bin; check each launch. Then delete the
    //   throw, and compare the two steps' histogram stage on random and skewed images.
    throw labkit::NotImplemented("histogram_global_atomics_padded (01_global_atomics.cu)");
}

}  // namespace histogram_equalization
