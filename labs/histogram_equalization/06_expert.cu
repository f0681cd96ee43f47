// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 06 — Expert tier: the whole equalization near the memory floor (optional challenge, bonus points)
// Changes vs 03 + 04 + 05: you are no longer given a pipeline. histogram_equalization_expert()
//   receives the image and the output and does everything in between, any way you like; the
//   grader times the whole call, and each stage you mark.
// The floor: the LUT depends on every pixel, so the image is read twice and the output written
//   once: 3 B/px. The targets, on an H100 at 8192^2 (about 3000 GB/s of copy bandwidth): the whole
//   call in at most 100 us, and the histogram alone in at most 30 us on uniform noise, on the
//   skewed image (90% of the pixels 255) and on an image of one value.
// Cost, limits and reference: yours to write here, as the other files do (what it changes, what
//   it costs in bytes per pixel, where it stops working, and what you read).
// Ref (a starting point): Gómez-Luna et al. 2013, "An optimized approach to histogram computation
//   on GPU"; PMPP 4th ed., ch. 9; NVIDIA, "CUDA C++ Best Practices Guide" (memory accesses).
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {

// A plan that works (there are others): three kernels, histogram -> LUT -> map.
//
// TODO(step 6a): measure first. Time gpu-03-aggregated-ks-b256 on the `random` and the `skewed`
//   patterns at 8192^2 (./labkit grade histogram_equalization --variants gpu-03-aggregated-ks-b256).
//   The report has a column per stage: which one is furthest from its share of the copy
//   bandwidth, and how many bytes does a thread load per instruction in your 03 and 05?
//
// TODO(step 6b): the histogram's loads. One thread, many pixels: how many bytes can one load
//   instruction bring per thread, and what must be true of the address (and of the view's data
//   and pitch) for it? Keep several loads in flight per thread before you use the first. Walk the
//   image as rows of vectors, so a thread never needs a division per vector.
//   Pitfalls: an image's width is rarely a multiple of your vector, and a view may start at any
//   byte or have any pitch: the pixels past the end of a row must be neither read nor counted
//   (the grader checks the guard space). How many blocks do you need to fill every SM, and what
//   does launching more than that cost you in merges?
//
// TODO(step 6c): the histogram's counting on uniform noise. A shared atomic is one instruction
//   for the warp, but two lanes that hit the same bank (not only the same bin) take turns. How
//   many copies of the 256 counters would let every lane count into a bank of its own, whatever
//   the values, and how much shared memory is that per block? How do the warps of a block share
//   them, and how many blocks then fit on an SM (registers too)? Then count what a pixel costs
//   in instructions (cuobjdump -sass, or Nsight Compute's instruction statistics), the atomic
//   and everything around it: which pipe sets the pace, and what could you take away?
//
// TODO(step 6d): the skewed and the single-valued images. In 03, when 29 of 32 lanes add to the
//   same counter, the atomic serializes. There are two ways out: keep the lanes off each other's
//   counters, or count equal pixels before any atomic (in a register, with a warp-wide vote, or
//   in small packed counters flushed before they overflow). Which costs the least on noise, where
//   no two pixels are alike, and what does each do on an image of one value, or of two that
//   alternate? Time the three patterns before you decide: a branch per pixel is not free (the
//   grader times noise and the skewed image; add the one-valued one with
//   --perf-patterns random,skewed,full).
//
// TODO(step 6e): the merge and the LUT. Merge each block's copies into the global histogram once.
//   Then one small block turns the 256 counts into the LUT: the scan and the normalize of 04 and
//   05 in one kernel. Which of the scan's barriers can warp shuffles replace? Keep the header's
//   contract exactly: 64-bit arithmetic, round half up, a single-valued image is its own output.
//   Pitfall: the global histogram must start from zero on every call, and the workspace does not
//   clear it for you.
//
// TODO(step 6f): the map. The same loads, a store of the same width, the LUT in shared memory.
//   How many bank conflicts can a lookup into a 256-byte table have? The histogram's last reads
//   may still be in L2 when the map starts: which order of reading would find them there?
//
// TODO(step 6g): mark the stages, so the grader's per-stage columns mean what they say: call
//   labkit::end_stage(ctx) (labkit/image_pool.hpp) after the histogram, the scan, the normalize
//   and the map, as kit/pipeline.cpp does. A stage you fuse into the previous one is still
//   marked (it shows about 0 us). Check every launch, as the other files do.
//
// Then measure again (./labkit grade histogram_equalization --variants gpu-04-expert) and write
// this file's header: what limits each stage now, in bytes per pixel and in instructions?

void histogram_equalization_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                   [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("histogram_equalization_expert (06_expert.cu): optional challenge");
}

}  // namespace histogram_equalization
