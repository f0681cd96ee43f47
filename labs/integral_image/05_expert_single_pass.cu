// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// 05 — Expert tier, stretch goal: the whole table in one pass (optional challenge, bonus points)
// Changes vs 05_expert_sat.cu: that plan reads the image twice (once for the tiles' sums, once to
//   build the table) and launches three kernels. integral_image_expert_single_pass() has the same
//   contract as integral_image_expert() and must read each pixel once and write each sum once:
//   one kernel, in which blocks hand each other the sums they need while they run.
// The floor is the same 5 B/px. Your 05 already gets close; what is left to win is the second
//   read of the image and the gaps between launches. Measure before and after: is it worth it?
// Cost, limits and reference: yours to write here, as the other files do (bytes per pixel,
//   barriers, shared memory, and the traffic the blocks exchange).
// Ref (a starting point): Merrill & Garland 2016, "Single-pass parallel prefix scan with decoupled
//   look-back"; Bilgic, Horn & Masaki 2010, "Efficient integral image computation on the GPU".
#include <cstdint>

#include "integral_image.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace integral_image {

// A plan that works (there are others). Cut the image into bands of a few dozen rows. One block
// owns a band and walks it left to right in chunks (say a warp's worth of 16-byte loads wide), so
// each row's running sum can stay on chip from one chunk to the next: nothing needs to come from
// the left. What the band needs from above is one number per column: the table's row just above
// the band, out(x, y0 - 1). Then, inside the band,
//   out(x, y) = [the band's own sums, columns 0..x, rows y0..y]  +  out(x, y0 - 1).
// The band above computes that row... while your band is computing its own. That is a scan down
// the bands, one vector per chunk, and 04 already taught you a chained scan.
//
// TODO(step 5f): the band itself, without the part from above. Per chunk: scan each row (as in
//   05: registers, then shuffles, then the row's carry), then sum down the band's rows (which
//   thread owns which column, and where do the rows live meanwhile?). Check it first with a
//   single band (an image at most as tall as one), where nothing comes from above.
//
// TODO(step 5g): the chain. Its counter, flags and aggregates come from ctx.workspace
//   (Scratch::single_pass_flags, Scratch::single_pass_aggregates: see integral_image.hpp), not
//   from cudaMalloc. Give each block its band from an atomic counter, as 04 does, and let
//   each band, per chunk, publish its last row of the table with a flag once it is written; the
//   band below waits for that flag. Which blocks can a block ever wait for, and why can that
//   never deadlock, however few blocks fit on the GPU? Pitfalls: the flag must not become
//   visible before the data it announces (release on the writer's side, acquire on the reader's:
//   cuda::atomic_ref, or __threadfence() and volatile loads); flags left from the previous call
//   (clear them, or make sure an old flag cannot look new); blocks that read a row another block
//   wrote must not get a stale copy from L1.
//
// TODO(step 5h): measure the chain. Every band starts at the same moment, so the band at the
//   bottom waits for every band above it, one publish-to-read latency each, before it can
//   write its first chunk. How long is that at 8192^2 with your band height, and how does it
//   compare with the whole call? Decoupled look-back cuts the chain: a band also publishes, as
//   soon as it has it, its AGGREGATE (its own sums on its last row, nothing from above), and the
//   band below adds the aggregates of the bands above it until it meets one whose INCLUSIVE row
//   is ready. How far back should a band look before it waits instead, and what does each band
//   it looks at cost in reads? Pitfall: a flag per (band, chunk) whose state only ever grows
//   (nothing, aggregate, inclusive) lets a reader trust what it saw.
//
// TODO(step 5i): keep memory busy. While a block waits at a barrier or on the look-back, are
//   its next loads already in flight? Are your stores whole 32-byte sectors per instruction (see
//   04)? How many blocks fit per SM with your shared memory and registers (-Xptxas -v)?
//   Pitfall: a block may have 64 KB of shared memory on a T4 and 227 KB on an H100. A launch that
//   asks more than the GPU gives is reported skipped, not passed: keep a shape that fits 64 KB,
//   and ask the device (cudaDevAttrMaxSharedMemoryPerBlockOptin) before you take a larger one.

void integral_image_expert_single_pass([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                       [[maybe_unused]] GpuContext& ctx) {
    throw labkit::NotImplemented("integral_image_expert_single_pass (05_expert_single_pass.cu): optional challenge");
}

}  // namespace integral_image
