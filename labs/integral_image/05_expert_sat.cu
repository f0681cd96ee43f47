// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 05 — Expert tier: the whole table near the hardware limit (optional challenge, bonus points)
// Changes vs 04: you are no longer given a pipeline. integral_image_expert() receives the uint8
//   image and must fill the uint32 table, any way you like, and the grader times the whole call.
// The floor: every pixel must be read once (1 B) and every sum written once (4 B): 5 B/px. The
//   04 pipeline moves about 29 B/px (two row scans, two transposes, uint32 in between), so even
//   with every pass at full speed it cannot come close. How far below 29 B/px can you get?
// Cost, limits and reference: yours to write here, as the other files do (what it changes, what
//   it costs in bytes and barriers, where it stops working, and what you read).
// Ref (a starting point): Bilgic, Horn & Masaki 2010, "Efficient integral image computation on
//   the GPU"; Merrill & Garland 2016, "Single-pass parallel prefix scan with decoupled look-back".
#include <cstdint>

#include "integral_image.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace integral_image {

// A plan that works (there are others). Think of the image as tiles, say a warp's worth of
// 16-byte loads wide (512 pixels) and a few dozen rows tall. For the pixel (x, y) of the tile
// whose top-left corner is (x0, y0), out(x, y) is the sum of four parts:
//   [all tiles above and to the left]  +  [the tiles above, columns x0..x]
//   + [the tiles to the left, rows y0..y]  +  [inside the tile, up to (x, y)]
// The first three need only a few numbers per tile, row and column, which a first pass over the
// image can produce (each tile's row sums, column sums and total) and a small second step can
// turn into carries (scans over the tiles). A last pass then builds every tile's part and adds
// the carries: the image is read twice and the table written once, about 6 B/px.
//
// TODO(step 5a): the first kernel. One block per tile: the sum of each of its rows, of each of
//   its columns, and its total, into small arrays from ctx.workspace (add nothing to the header:
//   Scratch has expert_* slots for you). Which layout makes the later reads coalesced?
//
// TODO(step 5b): the carries: for each column, the column sums of the tiles above it (a scan
//   down the tiles); for each row of each tile, the row sums of the tiles to its left (a scan
//   across the tiles); for each tile, the total of the tiles above and to its left. These arrays
//   are thousands of times smaller than the image: what limits this step is latency and launch,
//   not bandwidth. How many loads does each thread keep in flight?
//
// TODO(step 5c): the last kernel. Per tile: scan each row in registers and across the warp (as
//   in 04), scan down each column (shared memory: which thread owns which column?), add the
//   carries (the tiles above, to the left, and both), and store.
//   Pitfalls: the ragged right and bottom edges (never read or write past them; the grader
//   checks the guard space); shared-memory bank conflicts when a lane writes 16 consecutive
//   words (measure them: ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared); sums wrap
//   modulo 2^32, which unsigned arithmetic does for you.
//
// TODO(step 5d): measure. The grader prints this variant's time and its % of copy bandwidth on
//   the 5 B/px floor. Which of your kernels dominates, and what does the profiler say limits it?
//   (Stretch: a single pass that reads the image once, with decoupled look-back between bands,
//   goes in 05_expert_single_pass.cu, step 5f, not here.)
//
// TODO(step 5e): the two other layouts, each graded as an exercise of its own.
//   integral_image_expert_64: the same table in uint64, exact. At 8192^2 an all-255 image sums
//   past 2^32. Which of your intermediate sums can stay 32-bit (how large can a sum inside one
//   tile get?), and which must not? Keep 32-bit work where it is safe: shared memory and
//   registers are the scarce resources, and a uint64 tile in shared memory is twice the size.
//   integral_image_expert_exclusive: OpenCV's and NPP's layout, (W + 1) x (H + 1) with a zero row
//   and column first. Write it without a second copy of the table. Pitfall: shifted by one
//   element, the rows of `out` are no longer 16-byte aligned; check before a vector store.

void integral_image_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("integral_image_expert (05_expert_sat.cu): optional challenge");
}

void integral_image_expert_64([[maybe_unused]] Input in, [[maybe_unused]] Output64 out,
                              [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("integral_image_expert_64 (05_expert_sat.cu): optional challenge");
}

void integral_image_expert_exclusive([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                     [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("integral_image_expert_exclusive (05_expert_sat.cu): optional challenge");
}

}  // namespace integral_image
