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
    // TODO(step 2a): loop over rows: for (int y = blockIdx.y; y < in.height; y += gridDim.y).
    //   Inside, load one element per thread into shared memory: xy[t] = in(x, y) if x < in.width,
    //   else 0 (out-of-range threads load 0: the sums are unchanged and every thread still takes
    //   part in every step and every barrier). (~2 lines)
    //
    // TODO(step 2b): the Kogge–Stone steps (~7 lines):
    //   for (int stride = 1; stride < n; stride *= 2) {
    //       __syncthreads();   // barrier 1: the load / the previous step's writes are complete
    //                          // before anyone reads a neighbour's element
    //       read left = xy[t - stride] into a register (0 if t < stride);
    //       __syncthreads();   // barrier 2: every thread has read its left neighbour before
    //                          // anyone overwrites an element (else: read/write race)
    //       xy[t] += left;
    //   }
    //   Both barriers sit outside any `if`: every thread of the block must reach each of them.
    //
    // TODO(step 2c): write the result (~2 lines): out(x, y) = xy[t] if x < in.width; the last
    //   thread (t == n - 1) holds the section total: sums(blockIdx.x, y) = xy[t].
    //   No barrier is needed before the next row: until barrier 1 each thread touches only xy[t].
}

// One warp per row of sums; blockDim = (kWarpSize, kSumsRowsPerBlock).
[[maybe_unused]] __global__ void scan_block_sums_kernel([[maybe_unused]] View<std::uint32_t> sums) {
    // TODO(step 2e): exclusive scan of each row of sums, 32 entries at a time (~15 lines).
    //   lane = threadIdx.x; y = blockIdx.x * blockDim.y + threadIdx.y; return if y >= sums.height
    //   (y is the same for all 32 lanes, so whole warps return and the shuffles stay legal).
    //   std::uint32_t carry = 0;   // total of the chunks already done
    //   for (int base = 0; base < sums.width; base += kWarpSize) {
    //       b = base + lane; total = b < sums.width ? sums(b, y) : 0;
    //       inclusive = total; for d = 1, 2, 4, 8, 16: left = __shfl_up_sync(kFullMask, inclusive, d);
    //           if (lane >= d) inclusive += left;        (Kogge–Stone in registers, no barrier)
    //       if (b < sums.width) sums(b, y) = carry + inclusive - total;   // exclusive
    //       carry += __shfl_sync(kFullMask, inclusive, kWarpSize - 1);   // this chunk's total
    //   }
}

// Block (b, y) adds sums(b + 1, y) to section b + 1 of row y; section 0 needs nothing.
[[maybe_unused]] __global__ void add_block_sums_kernel([[maybe_unused]] View<const std::uint32_t> sums,
                                                       [[maybe_unused]] Output out,
                                                       [[maybe_unused]] int section_size) {
    // TODO(step 2g): (~8 lines) section = blockIdx.x + 1; begin = section * section_size;
    //   end = min(begin + section_size, out.width);
    //   for (int y = blockIdx.y; y < out.height; y += gridDim.y) {
    //       offset = sums(section, y);   // the same address for the whole block: a broadcast
    //       for (int x = begin + threadIdx.x; x < end; x += blockDim.x) out(x, y) += offset;
    //   }
}

}  // namespace

void scan_block_sums([[maybe_unused]] View<std::uint32_t> sums, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2f): (~4 lines) return if sums is empty; block dim3(kWarpSize, kSumsRowsPerBlock);
    //   grid ceil_div(sums.height, kSumsRowsPerBlock); launch scan_block_sums_kernel on ctx.stream;
    //   CUDA_CHECK_LAUNCH(). Then delete the throw.
    throw labkit::NotImplemented("scan_block_sums (02_kogge_stone.cu)");
}

void add_block_sums([[maybe_unused]] View<const std::uint32_t> sums, [[maybe_unused]] Output out,
                    [[maybe_unused]] int section_size, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2h): (~6 lines) sections = ceil_div(out.width, section_size); return if
    //   sections <= 1 or out.height == 0 (nothing to add, and a zero-block grid is an error);
    //   grid dim3(sections - 1, std::min(out.height, kMaxGridY)), kAddThreads threads;
    //   launch add_block_sums_kernel on ctx.stream; CUDA_CHECK_LAUNCH(). Then delete the throw.
    throw labkit::NotImplemented("add_block_sums (02_kogge_stone.cu)");
}

template <class In>
void scan_rows_kogge_stone([[maybe_unused]] View<const In> in, [[maybe_unused]] Output out,
                           [[maybe_unused]] const Tuning& tuning, [[maybe_unused]] GpuContext& ctx) {
    // TODO(step 2d): the hierarchy (~16 lines).
    //   s = tuning.section_size; throw std::invalid_argument unless 1 <= s <= kMaxSectionSize.
    //   Return early for an empty image.
    //   sections = ceil_div(in.width, s);
    //   sums: a dense (sections x in.height) View<std::uint32_t> over
    //       ctx.workspace->get<std::uint32_t>(Scratch::block_sums, std::size_t(sections) * in.height),
    //       with pitch = sections. Never cudaMalloc: the workspace reuses memory between runs.
    //   Launch scan_sections_kernel<<<dim3(sections, std::min(in.height, kMaxGridY)), s,
    //       s * sizeof(std::uint32_t), ctx.stream>>>(in, out, sums); CUDA_CHECK_LAUNCH();
    //   If sections > 1: scan_block_sums(sums, ctx); add_block_sums(sums, out, s, ctx);
    //   All three run in order on ctx.stream: no synchronization is needed (or allowed).
    //   Then delete the throw.
    throw labkit::NotImplemented("scan_rows_kogge_stone (02_kogge_stone.cu)");
}

template void scan_rows_kogge_stone<std::uint8_t>(View<const std::uint8_t>, Output, const Tuning&, GpuContext&);
template void scan_rows_kogge_stone<std::uint32_t>(View<const std::uint32_t>, Output, const Tuning&, GpuContext&);

}  // namespace integral_image
