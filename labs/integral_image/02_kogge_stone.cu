// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 02 — Kogge–Stone row scan (hierarchical)
// Changes vs 01: a block of section_size threads scans one section of a row in shared memory in
//   log2(section_size) steps, one element per thread; every thread of the GPU has work. Rows
//   longer than a section take two more small kernels: scan_block_sums (exclusive scan of the
//   section totals of each row) and add_block_sums (add each section's offset back).
// Cost: section scan: log2(S) steps of up to S adds each, S log2(S) - S + 1 adds in all per
//   section (not work-efficient: the sequential scan needs S - 1), two barriers per step.
//   Global traffic: read the input once (1 or 4 B/px), write the output (4 B/px), then
//   add_block_sums reads and writes it again (+8 B/px for sections >= 1): 13 B/px (u8) or
//   16 B/px (u32) when a row holds more than one section, 5 or 8 B/px when it fits in one; the
//   sums array adds 4/S B/px.
// Limits: S <= 1024 (one element per thread, 1024 threads per block at most); the three kernels
//   pay three launches and the extra pass over the output.
// Ref: Kogge & Stone 1973; Hillis & Steele 1986; Hwu, Kirk & El Hajj, PMPP 4th ed., ch. 11.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "integral_image.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/launch.hpp"
#include "labkit/errors.hpp"

// [[maybe_unused]] only silences "declared but never referenced" until your code uses the name;
// delete it then.

namespace integral_image {
namespace {

using labkit::ceil_div, labkit::kWarpSize, labkit::kFullMask, labkit::kMaxGridY;

// scan_block_sums gives each row of sums to one warp; 8 warps (256 threads) per block keep
// enough warps resident to hide the latency of the few loads each one makes.
[[maybe_unused]] constexpr int kSumsRowsPerBlock = 8;
// add_block_sums: threads per block; a block loops over its section, so any section size works.
constexpr int kAddThreads = 256;
static_assert(kAddThreads % kWarpSize == 0, "whole warps only");

// Kernel 1: block (b, y) scans section b of row y (blockDim.x = S elements, one per thread)
// and writes the section total to sums(b, y). Rows are looped over because gridDim.y <= 65535.
template <class In>
__global__ void scan_sections_kernel([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                                     [[maybe_unused]] View<std::uint32_t> sums) {
    // Given: the section lives in dynamic shared memory, blockDim.x words (the launch's third
    // <<<>>> argument sets its size).
    //   extern __shared__ std::uint32_t xy[];
    //   const int n = blockDim.x, t = threadIdx.x, x = blockIdx.x * n + t;
    //
    // TODO(step 2a): loop over the rows this block owns (gridDim.y is limited, so a block may
    //   have several, gridDim.y apart), and load one element per thread into xy. Pitfall:
    //   threads past the end of the row must still take part in every step and every barrier
    //   below; give them a value that leaves the sums unchanged.
    //
    // TODO(step 2b): the Kogge–Stone steps: log2(n) steps with a doubling stride, each thread
    //   adding the element `stride` places to its left. Each step needs two barriers; for each
    //   one, write a comment that says which race it prevents (what goes wrong without it).
    //   Pitfall: a barrier inside an `if` that not every thread takes is undefined behaviour.
    //
    // TODO(step 2c): write the scanned section to out (only inside the image), and the section's
    //   total to sums(blockIdx.x, y): which thread holds it? Is a barrier needed before the next
    //   row's load? Say why in a comment.
}

// One warp per row of sums; blockDim = (kWarpSize, kSumsRowsPerBlock).
[[maybe_unused]] __global__ void scan_block_sums_kernel([[maybe_unused]] View<std::uint32_t> sums) {
    // TODO(step 2e): an EXCLUSIVE scan of one row of sums per warp, with warp shuffles instead of
    //   shared memory. A row can hold more than 32 sums: take them 32 at a time and carry the
    //   total of the chunks already done into the next. Pitfalls: every lane of a warp must
    //   take part in each shuffle (so whole warps return together, or none), and lanes past the
    //   end of the row contribute nothing. How do you get the exclusive value from the
    //   inclusive one without a second scan?
}

// Block (b, y) adds sums(b + 1, y) to section b + 1 of row y; section 0 needs nothing.
[[maybe_unused]] __global__ void add_block_sums_kernel([[maybe_unused]] View<const std::uint32_t> sums,
                                                       [[maybe_unused]] Output out,
                                                       [[maybe_unused]] int section_size) {
    // TODO(step 2g): add this section's offset (the exclusive sum of the sections before it) to
    //   every element of the section, for every row the block owns. The block may have fewer
    //   threads than the section has elements, and the last section may be partial.
}

}  // namespace

void scan_block_sums([[maybe_unused]] View<std::uint32_t> sums, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2f): launch scan_block_sums_kernel: one warp per row of sums, kSumsRowsPerBlock
    //   rows per block, on ctx.stream, checked at once. Pitfall: an empty sums array.
    //   Then delete the throw.
    throw labkit::NotImplemented("scan_block_sums (02_kogge_stone.cu)");
}

void add_block_sums([[maybe_unused]] View<const std::uint32_t> sums, [[maybe_unused]] Output out,
                    [[maybe_unused]] int section_size, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2h): launch add_block_sums_kernel, one block per section that needs an offset
    //   (which ones do not?) and row, rows capped at kMaxGridY, kAddThreads threads, on
    //   ctx.stream, checked at once. Pitfall: when nothing needs adding, launch nothing.
    //   Then delete the throw.
    throw labkit::NotImplemented("add_block_sums (02_kogge_stone.cu)");
}

template <class In>
void scan_rows_kogge_stone([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                           [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2d): the hierarchy, three launches in order on ctx.stream:
    //   1. scan every section (one block of tuning.section_size threads per section and row,
    //      the section in dynamic shared memory: the launch's third <<<>>> argument);
    //   2. when a row has more than one section, scan the section totals (scan_block_sums);
    //   3. add them back (add_block_sums).
    //   The totals need a sections x height array: take it from the workspace
    //   (ctx.workspace->get, slot Scratch::block_sums), never from cudaMalloc, so that timed
    //   runs allocate nothing. Refuse a section size outside 1..kMaxSectionSize with
    //   std::invalid_argument; return early for an empty image. Why is no synchronization
    //   needed between the three launches?
    //   Then delete the throw.
    throw labkit::NotImplemented("scan_rows_kogge_stone (02_kogge_stone.cu)");
}

template void scan_rows_kogge_stone<std::uint8_t>(View<const std::uint8_t>, Output, const Tuning&, GpuContext&);
template void scan_rows_kogge_stone<std::uint32_t>(View<const std::uint32_t>, Output, const Tuning&, GpuContext&);

}  // namespace integral_image
