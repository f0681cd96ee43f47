// starter: generates labs/convolution/05_expert.cu
// starter: step optional challenge (bonus): every filter in one kernel, near the memory and FMA
// starter: step roofs
// starter: prompt
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
// starter: solution
// 05 — Expert: every filter in one kernel, near the memory roof or the FMA roof (optional challenge)
// Changes vs 03 and 04: one launch per image, whatever the filter, and no intermediate image.
//   - Direct (any filter): a block owns a 128 x 32 tile of outputs and stages the tile plus its
//     halo in shared memory once, with 16-byte loads and the border applied while loading. Each
//     thread then computes a 4 x 4 patch: per filter row it holds the row's weights in registers
//     and, per output row of its patch, 4 + 2r inputs, so every input it loads from shared memory
//     feeds up to 4 FMAs and every weight 16; with 16-byte loads, 0.07 shared loads per FMA at
//     k = 25 (03: one shared load per FMA).
//   - Separable (box, Gaussian, Sobel), from k = 7 (below it the direct kernel is faster): a
//     block walks down a strip 128 columns wide, 32 rows (a chunk) at a time. The chunks' input
//     rows are double-buffered in shared memory and copied there by cp.async: the next chunk is on
//     its way from DRAM while this one's passes run, so every block overlaps its own loads with
//     its own sums. The row pass (a thread: 16 sums along one row) writes into a ring of row sums
//     that also keeps the 2r rows above the chunk, so no row sum is computed twice in a strip nor
//     copied down; the column pass (a thread: 2 x 8 outputs) reads the ring and writes straight to
//     the output. The row sums never leave the SM: 8 B/px, not 04's 16. Strips of up to 256 rows,
//     as tall as make the blocks fill their waves (strip_rows_for): a last wave of a few blocks
//     would leave most SMs idle while it runs.
//   - The filter size is a template parameter, so the tap loops unroll into straight FMAs on
//     registers. Sizes 1, 3, 5, 7, 9, 15 and 25 are compiled (the bank's and the grader's); any
//     other odd k runs the next size up with its weights padded by zeros, which adds exact zeros
//     to every sum: a correct fallback, at the larger size's cost.
// Cost (8192^2, k the compiled size): DRAM 4 B/px read + 4 B/px written = 8 B/px; the halos are
//   re-read from L2, not DRAM: (128 + 2r + pad)(32 + 2r) / (128 * 32) floats per pixel direct
//   (1.13 at k = 3, 2.08 at k = 25), (1 + 2r / strip height) separable. FLOPs: direct 2 k^2 per
//   pixel (18 at k = 3, 1250 at k = 25), all FMAs; separable 2k (column) + 2k (1 + 2r / strip
//   height) (row pass, halo rows included): 100 + 10 at k = 25 with 256-row strips. Shared loads
//   per FMA: direct (4 + 2r rounded up to 4) / (16 k) float4 + 1 / 16 float4 of weights (0.07 at
//   k = 25); separable, row pass (16 + 2r rounded up to 4) floats per 16k FMAs, column pass 8 + 2r float2 per 16k: 0.4 and 0.64 B per
//   FMA at k = 25 (1.1 with 4 x 4 patches in both passes, which kept the shared-memory pipe busier
//   than the FMA pipe). Barriers: direct two per tile; separable two per 32-row chunk.
// Measured (H100, 8192^2, kernels only, the grader; measurements/results-handwritten-2026-11-26.md):
//   direct 0.195 / 0.207 ms at k = 3 / 5 (93% and 88% of copy bandwidth), 1.876 ms on disk:25
//   (44.7 TFLOP/s, 70% of the FMA rate); separable at k = 9 / 15 / 25: 0.225 / 0.224 / 0.243 ms with strips that fill their
//   waves, against 0.225 / 0.238 / 0.251 ms in the same call with 8-chunk strips (5.2 waves at
//   k = 15 and 25); across three calls, 0.224 to 0.247 ms at k = 15 and 0.243 to 0.262 ms at
//   k = 25. The version before the double buffer, which loaded each chunk, waited, then computed
//   it: 0.236 / 0.239 / 0.277 ms. Tried and measured slower: one wave of blocks with strips as
//   tall as it takes (0.284 / 0.327 / 0.367 ms), and one input buffer for 4 blocks per SM
//   (0.299 / 0.299 / 0.329 ms).
// Limits: the compiled sizes are a trade between build time and the cost of padding (k = 17
//   runs as 25: 2.2x the FMAs of its own size); a separable filter is taken on its factors, so
//   its rounding differs from the 2D sum's (within the lab's tolerance, as 04); small images (a
//   few blocks) cannot fill the GPU, and their strips are short (2r / strip height extra row
//   sums: 25% at k = 25 on 2048^2, 96-row strips); the separable kernel needs 68 KB of shared memory per block
//   at k = 25 (62 KB at k = 15, 56 KB at k <= 9), which caps residency at 3 blocks per SM on an
//   H100 (4 at k <= 9), and a GPU that cannot give a block that much (Turing: 64 KB) runs those
//   filters through the direct kernel; each strip's halo and first chunk are loaded before
//   anything in that block overlaps them (every strip); blocks still end unevenly (at k = 25 Nsight
//   Compute finds the SMs idle 12% of the kernel's time), and at k = 25 the kernel is bound by
//   instruction issue (71% of issue slots, "not selected" the first stall), not by DRAM (58%).
// Ref: PMPP 4th ed., ch. 7 (tiles and halos); V. Podlozhnyuk, "Image Convolution with CUDA",
//   NVIDIA 2007 (separable passes); V. Volkov, "Better performance at lower occupancy", GTC 2010
//   (several outputs per thread, values in registers); the CUDA C++ Best Practices Guide
//   (16-byte accesses, shared-memory bank conflicts); the CUDA C++ Programming Guide,
//   "Asynchronous Data Copies" (cp.async and the pipeline primitives used here).
// starter: end
// starter: solution
#include <cuda_pipeline.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

// starter: end
#include "convolution.hpp"
#include "labkit/cuda_check.hpp"
//> #include "labkit/errors.hpp"
#include "labkit/launch.hpp"

namespace convolution {
// starter: prompt
//>
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
//>
//> void set_weights_expert([[maybe_unused]] const float* weights, [[maybe_unused]] const float* row,
                        //> [[maybe_unused]] const float* column, [[maybe_unused]] int size,
                        //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("set_weights_expert (05_expert.cu): optional challenge");
//> }
//>
//> void convolve_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int size,
                     //> [[maybe_unused]] bool separable, [[maybe_unused]] Border border,
                     //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("convolve_expert (05_expert.cu): optional challenge");
//> }
// starter: solution
namespace {

using labkit::ceil_div, labkit::kMaxGridY, labkit::kWarpSize;

constexpr int kVec = 4;                               // floats per 16-byte access
constexpr int kThreadsX = kWarpSize;                  // a warp spans a tile row: 512 contiguous bytes per access
constexpr int kThreadsY = 8;                          // warps per block
constexpr int kThreads = kThreadsX * kThreadsY;       // 256
constexpr int kOutX = kVec;                           // outputs per thread along x: one float4 store
constexpr int kTileW = kThreadsX * kOutX;             // 128 output columns per block
constexpr int kOutY = 4;                              // outputs per thread along y
constexpr int kTileH = kThreadsY * kOutY;             // 32 output rows per tile (direct) or chunk (separable)
// Below this size a separable filter takes the direct kernel: 2k^2 <= 50 FMAs per pixel cost less
// than the strips' barriers per chunk (measured with the previous separable kernel, which did not
// overlap its loads: H100, 8192^2, direct 0.204 ms against 0.247 at k = 3, 0.215 against 0.250 at
// k = 5; separable ahead from k = 7).
constexpr int kMinSeparableSize = 7;
static_assert(kTileW % kVec == 0 && kTileH == kThreadsY * kOutY, "a thread's patch is one float4 wide, kOutY tall");

// The separable kernel's work shares. A 16-byte shared access is served 8 lanes at a time (8 x 16
// B = the 32 banks' 128 B), so these are the lanes whose addresses must fall in different banks.
constexpr int kPhaseLanes = kWarpSize / kVec;
constexpr int kRowOutX = 16;                         // row pass: a thread's sums along one row
constexpr int kRowGroups = kTileW / kRowOutX;        // 8 threads per row of the chunk
constexpr int kColOutX = 2;                          // column pass: a thread's outputs across (one float2)
constexpr int kColOutY = 8;                          // and down
constexpr int kColThreadsX = kTileW / kColOutX;      // 64 threads across the chunk
constexpr int kTileBuffers = 2;                      // a chunk computed while the next one loads
constexpr int kMaxChunksPerStrip = 8;                // separable strips of at most 256 rows: 2r / 256 extra row sums
// 68 KB of shared memory a block at k = 25 (62 at k = 15): 3 blocks fit in an H100 SM's 228 KB,
// and 3 x 256 threads leave 80 registers a thread, which the launch bounds tell the compiler.
// (At k <= 9: 56 KB, and ptxas gives 60 to 62 registers, so the occupancy query finds room for 4.)
constexpr int kSeparableBlocksPerSm = 3;
static_assert(kThreads == kRowGroups * kTileH && kTileH % kPhaseLanes == 0,
              "the row pass: one row of 16 sums a thread, 8 consecutive lanes on 8 consecutive rows");
static_assert(kThreads / kColThreadsX * kColOutY == kTileH, "the column pass: 2 x 8 outputs a thread, 32 rows a chunk");

// The compiled filter sizes, ascending; every odd k up to kMaxFilterSize runs the first one >= k.
constexpr std::array<int, 7> kCompiled = {1, 3, 5, 7, 9, 15, kMaxFilterSize};
static_assert(kCompiled.back() == kMaxFilterSize, "every legal k has a compiled size to run as");

constexpr int compiled_size(int size) {
    for (int k : kCompiled)
        if (k >= size) return k;
    return 0;
}

constexpr int round_up(int n, int m) { return ceil_div(n, m) * m; }

// The weights of the compiled size K, the caller's filter centred in it and padded with zeros.
// __device__ rather than __constant__: the direct kernel copies them into shared memory once per
// block, each thread a different weight, which the constant cache would serialize; and 03's
// measurements show many blocks sweeping a 2.5 KB __constant__ array at their own pace missing in
// the constant cache.
__device__ float g_weights[kMaxWeights];  // K(dx, dy) = g_weights[(dy + R) * K + (dx + R)]
// The separable factors, padded the same way, are __constant__: 200 bytes that stay in the
// constant cache, read by every lane at the same index (a broadcast), so each FMA of the unrolled
// tap loops takes its weight straight from the constant bank and no register holds one.
__constant__ float c_row[kMaxFilterSize];
__constant__ float c_column[kMaxFilterSize];

// The shape of a block's staged input for a filter of size K. Shared column c of the tile holds
// in~(xa + c, .), with xa = x0 - R - kOff, x0 the block's first output column (a multiple of
// 128): kOff extra columns on the left make xa a multiple of 4, so every 16-byte global load and
// every 16-byte shared store is aligned, and a thread's inputs start at shared column 4 * tx,
// aligned too. Its 4 outputs need shared columns kOff + 4 tx .. kOff + 4 tx + 3 + 2R: kSpan
// floats from 4 tx, rounded up to whole float4s.
template <int K>
struct Shape {
    static constexpr int kRadius = K / 2;
    static constexpr int kOff = (kVec - kRadius % kVec) % kVec;
    static constexpr int kPitch = round_up(kOff + kTileW + 2 * kRadius, kVec);  // floats per tile row
    static constexpr int kGroups = kPitch / kVec;                              // float4s per tile row
    static constexpr int kSpan = round_up(kOff + kOutX + 2 * kRadius, kVec);   // floats a thread reads per row
    static_assert(kThreadsX * kOutX - kOutX + kSpan == kPitch, "the last thread's reads end at the tile's edge");
};

// The separable kernel's shared memory for a filter of size K (dynamic: past the 48 KB of static
// shared memory at k = 25). Two input tiles of 32 rows, each row the kGroups float4s of Shape<K>,
// then the ring of row sums.
template <int K>
struct SeparableShape {
    using S = Shape<K>;
    static constexpr int kRadius = S::kRadius;
    static constexpr int kHalo = 2 * kRadius;
    // Row pass: a thread's 16 sums read kSpan floats of its tile row from shared column 16 g.
    static constexpr int kSpan = round_up(S::kOff + kRowOutX + kHalo, kVec);
    // Tile rows an odd number of float4s apart: the 8 lanes of a 16-byte access read one column of
    // 8 consecutive rows, which then start in 8 different groups of 4 banks (no conflict).
    static constexpr int kTilePitch = (S::kGroups | 1) * kVec;
    static constexpr int kTileFloats = kTileH * kTilePitch;
    // Ring rows likewise (the row pass stores one column of 8 rows at a time): 128 floats and one
    // float4 of padding. The column pass's lanes read 64 consecutive floats of a row: no conflict.
    static constexpr int kSumPitch = kTileW + kVec;
    // The ring holds the chunk's 32 rows of sums and the 2R above it, in whole segments of 8 rows
    // (a column-pass thread's outputs), so a thread's rows wrap only at a segment's edge.
    static constexpr int kRingRows = round_up(kTileH + kHalo, kColOutY);
    static constexpr int kRingSegments = kRingRows / kColOutY;
    static constexpr int kColumnRows = kColOutY + kHalo;  // ring rows a column-pass thread reads (32 at k = 25)
    static constexpr int kColumnSegments = ceil_div(kColumnRows, kColOutY);
    static constexpr int kSharedFloats = kTileBuffers * kTileFloats + kRingRows * kSumPitch;
    static constexpr std::size_t kSharedBytes = sizeof(float) * kSharedFloats;
    static_assert((kRowGroups - 1) * kRowOutX + kSpan == S::kPitch, "the last thread's reads end at the tile's edge");
    static_assert(kHalo <= kTileH, "the prologue stages the halo above a strip as one chunk");
    static_assert(kColumnSegments <= kRingSegments, "a column-pass thread's rows never wrap onto themselves");
};

__device__ float4 load4(const float* p) { return __ldg(reinterpret_cast<const float4*>(p)); }

// Stages tile rows 0 .. rows - 1 (rows <= kMaxRows): tile(c, t) = in~(xa + c, ya + t), with the
// border applied. A block whose whole tile lies inside an aligned image takes the fast path:
// every load issued before any store (kIters float4s per thread in flight), 16 bytes each, no
// border_index. The other blocks (a thin frame of the image, or an unaligned view) go float by
// float through border_index.
template <int K, int kMaxRows>
__device__ void stage(float* tile, int rows, Input in, int xa, int ya, Border border, bool aligned) {
    using S = Shape<K>;
    constexpr int kIters = ceil_div(kMaxRows * S::kGroups, kThreads);
    const int tid = threadIdx.y * kThreadsX + threadIdx.x;
    const int items = rows * S::kGroups;
    const bool inside =
        aligned && xa >= 0 && xa + S::kPitch <= in.width && ya >= 0 && ya + rows <= in.height;  // block-uniform
    if (inside) {
        float4 v[kIters];
#pragma unroll
        for (int it = 0; it < kIters; ++it) {
            const int i = tid + it * kThreads;
            const int t = i / S::kGroups, g = i - t * S::kGroups;  // division by a constant: a multiply
            if (i < items) v[it] = load4(in.row(ya + t) + xa + g * kVec);
        }
#pragma unroll
        for (int it = 0; it < kIters; ++it) {
            const int i = tid + it * kThreads;
            if (i < items) reinterpret_cast<float4*>(tile)[i] = v[it];  // row t, float4 g: i = t * kGroups + g
        }
        return;
    }
    for (int i = tid; i < items; i += kThreads) {
        const int t = i / S::kGroups, g = i - t * S::kGroups;
        const int sy = border_index(ya + t, in.height, border);
        float e[kVec];
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
            const int sx = border_index(xa + g * kVec + j, in.width, border);
            e[j] = sx < 0 || sy < 0 ? 0.0f : in(sx, sy);  // -1: the zero border
        }
        reinterpret_cast<float4*>(tile)[i] = make_float4(e[0], e[1], e[2], e[3]);
    }
}

// N consecutive floats of a tile row into registers, from an aligned address: N / 4 LDS.128. The
// direct kernel's 32 lanes read 512 contiguous bytes per instruction, so no bank conflicts.
template <int N>
__device__ void read_span(const float* row, float (&v)[N]) {
    static_assert(N % kVec == 0, "whole float4s");
#pragma unroll
    for (int q = 0; q < N / kVec; ++q) {
        const float4 f = reinterpret_cast<const float4*>(row)[q];
        v[q * kVec] = f.x;
        v[q * kVec + 1] = f.y;
        v[q * kVec + 2] = f.z;
        v[q * kVec + 3] = f.w;
    }
}

// Clamps and stores one row of a thread's patch: a 16-byte store inside an aligned image, float
// by float at the ragged right edge (never past it: the grader checks the row padding).
__device__ void store_row(Output out, int x, int y, const float (&acc)[kOutX], bool aligned) {
    float* dst = out.row(y) + x;
    if (aligned && x + kOutX <= out.width) {
        *reinterpret_cast<float4*>(dst) =
            make_float4(clamp_pixel(acc[0]), clamp_pixel(acc[1]), clamp_pixel(acc[2]), clamp_pixel(acc[3]));
        return;
    }
#pragma unroll
    for (int p = 0; p < kOutX; ++p)
        if (x + p < out.width) dst[p] = clamp_pixel(acc[p]);
}

// ---- Direct: out(x, y) = clamp(sum of K(dx, dy) in~(x + dx, y + dy)) ---------------------------
// Block (bx, by): outputs x0 .. x0 + 127, y0 .. y0 + 31; thread (tx, ty) the 4 x 4 patch at
// x0 + 4 tx, y0 + 4 ty. Tile row t holds image row y0 - R + t.
template <int K>
__global__ void __launch_bounds__(kThreads) direct_kernel(Input in, Output out, Border border, bool in_aligned,
                                                          bool out_aligned) {
    using S = Shape<K>;
    constexpr int R = S::kRadius;
    constexpr int kRows = kTileH + 2 * R;
    constexpr int kWeightPitch = round_up(K, kVec);  // a filter row as whole float4s
    // Small K: unroll the filter rows too (their weights become registers for good). Larger K
    // would be 4 * 4 * K^2 FMAs of straight code, more than the instruction cache holds.
    // (Measured at k = 7 on an H100: fully unrolled, 127 registers and 2 blocks per SM, 0.294 ms;
    // rolled, or bounded to 3 blocks per SM, 0.31 ms: the unrolled body's ILP wins.)
    constexpr int kUnrollRows = K <= 9 ? K : 1;
    __shared__ __align__(16) float tile[kRows * S::kPitch];
    __shared__ __align__(16) float weights[K * kWeightPitch];

    const int tid = threadIdx.y * kThreadsX + threadIdx.x;
    for (int i = tid; i < K * kWeightPitch; i += kThreads) {
        const int dy = i / kWeightPitch, dx = i - dy * kWeightPitch;
        weights[i] = dx < K ? g_weights[dy * K + dx] : 0.0f;
    }
    // (The barrier after the first stage below also orders these writes before any read.)

    const int x0 = blockIdx.x * kTileW;
    const int xa = x0 - R - S::kOff;
    const int x = x0 + threadIdx.x * kOutX;
    // Uniform across the block (y0 depends on blockIdx only), so every thread meets both barriers.
    for (int y0 = blockIdx.y * kTileH; y0 < in.height; y0 += gridDim.y * kTileH) {
        stage<K, kRows>(tile, kRows, in, xa, y0 - R, border, in_aligned);
        // Read-after-write: a thread's patch reads tile rows and columns that other warps staged.
        __syncthreads();
        float acc[kOutY][kOutX] = {};
        const float* patch = tile + threadIdx.y * kOutY * S::kPitch + threadIdx.x * kOutX;
#pragma unroll kUnrollRows
        for (int dy = 0; dy < K; ++dy) {
            float w[kWeightPitch];  // filter row dy: one broadcast LDS.128 per 4 weights, then 16 uses each
#pragma unroll
            for (int q = 0; q < kWeightPitch / kVec; ++q) {
                const float4 f = reinterpret_cast<const float4*>(weights + dy * kWeightPitch)[q];
                w[q * kVec] = f.x;
                w[q * kVec + 1] = f.y;
                w[q * kVec + 2] = f.z;
                w[q * kVec + 3] = f.w;
            }
#pragma unroll
            for (int j = 0; j < kOutY; ++j) {
                float v[S::kSpan];
                read_span(patch + (j + dy) * S::kPitch, v);
#pragma unroll
                for (int dx = 0; dx < K; ++dx)
#pragma unroll
                    for (int p = 0; p < kOutX; ++p) acc[j][p] = fmaf(w[dx], v[S::kOff + p + dx], acc[j][p]);
            }
        }
        if (x < out.width)
#pragma unroll
            for (int j = 0; j < kOutY; ++j) {
                const int y = y0 + threadIdx.y * kOutY + j;
                if (y < out.height) store_row(out, x, y, acc[j], out_aligned);
            }
        // Write-after-read: every thread has finished reading this tile before the next pass of
        // the loop (a tall image only) stages the next one over it.
        __syncthreads();
    }
}

// ---- Separable: out(x, y) = clamp(sum over dy of column[dy] * t(x, y + dy)),
//      t(x, y') = sum over dx of row[dx] * in~(x + dx, y') ----------------------------------------

// Starts copying tile rows 0 .. rows - 1 (rows <= 32) of a separable tile, tile(c, t) =
// in~(xa + c, ya + t) with the border applied, and returns without waiting: cp.async moves the
// data from global to shared memory on its own, no register holds it, and the caller waits for
// this thread's copies with __pipeline_wait_prior, then for everyone's with a barrier. Warp w
// copies tile rows w, w + 8, ...; lane l the float4s l and l + 32 of each. A block whose tile lies
// inside an aligned image copies 16-byte float4s and nothing else (one 64-bit add per row for the
// address); the others (a thin frame of the image, or an unaligned view) find each row's source
// through border_index, copy the float4s that lie inside an aligned image whole and the rest
// float by float, and store the zeros of the zero border directly.
template <int K>
__device__ void stage_async(float* tile, int rows, Input in, int xa, int ya, Border border, bool aligned) {
    using S = Shape<K>;
    using P = SeparableShape<K>;
    constexpr int kLaneSteps = ceil_div(S::kGroups, kWarpSize);
    constexpr int kWarpRows = kTileH / kThreadsY;  // tile rows per warp, at most
    const int lane = threadIdx.x, first = threadIdx.y;
    float* dst = tile + first * P::kTilePitch + lane * kVec;
    const bool inside =
        aligned && xa >= 0 && xa + S::kPitch <= in.width && ya >= 0 && ya + rows <= in.height;  // block-uniform
    if (inside) {
        std::size_t src = static_cast<std::size_t>(ya + first) * in.pitch + xa + lane * kVec;  // an index of in.data
#pragma unroll
        for (int r = 0; r < kWarpRows; ++r, src += kThreadsY * in.pitch, dst += kThreadsY * P::kTilePitch)
            if (first + r * kThreadsY < rows)
#pragma unroll
                for (int q = 0; q < kLaneSteps; ++q)
                    if (lane + q * kWarpSize < S::kGroups)
                        __pipeline_memcpy_async(dst + q * kWarpSize * kVec, in.data + src + q * kWarpSize * kVec,
                                                sizeof(float4));
        return;
    }
#pragma unroll 1  // the image's frame only: kept small, out of the instruction cache's way
    for (int r = 0; r < kWarpRows; ++r, dst += kThreadsY * P::kTilePitch) {
        const int t = first + r * kThreadsY;
        if (t >= rows) break;
        const int sy = border_index(ya + t, in.height, border);  // -1: a row of the zero border
#pragma unroll
        for (int q = 0; q < kLaneSteps; ++q) {
            const int x = xa + (lane + q * kWarpSize) * kVec;
            float* d = dst + q * kWarpSize * kVec;
            if (lane + q * kWarpSize >= S::kGroups) break;
            if (sy < 0) {
                *reinterpret_cast<float4*>(d) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            } else if (aligned && x >= 0 && x + kVec <= in.width) {
                __pipeline_memcpy_async(d, in.row(sy) + x, sizeof(float4));
            } else {
#pragma unroll
                for (int j = 0; j < kVec; ++j) {
                    const int sx = border_index(x + j, in.width, border);
                    if (sx < 0)
                        d[j] = 0.0f;
                    else
                        __pipeline_memcpy_async(d + j, in.row(sy) + sx, sizeof(float));
                }
            }
        }
    }
}

// Block (bx, by) walks the strip of rows ys .. ys + strip_rows - 1, 32 rows (a chunk) at a time.
// Chunk c (rows yb = ys + 32c ..) needs the row sums t(., yb - R .. yb + 31 + R): the 2R rows
// above it, which the chunk before it computed (or, for the first, the strip's prologue), and 32
// new rows yb + R .., which it computes from its input rows in~(., yb + R ..), staged in tile
// buffer (c + 1) % 2. The ring stores t(., y) at ring row (y - ys + R) mod kRingRows, so chunk c
// reads ring rows 32c .. 32c + 31 + 2R (mod kRingRows) and writes 32c + 2R .. 32c + 2R + 31.
// Per chunk: wait for its tile, barrier, start the next chunk's copies into the other buffer,
// row pass, barrier, column pass. Each t is computed once per strip, never written to global
// memory, and the loads of chunk c + 1 run under the sums of chunk c.
template <int K>
__global__ void __launch_bounds__(kThreads, kSeparableBlocksPerSm)
    separable_kernel(Input in, Output out, Border border, bool in_aligned, bool out_aligned, int strip_rows) {
    using P = SeparableShape<K>;
    constexpr int R = P::kRadius;
    constexpr int kHalo = P::kHalo;
    static_assert(K >= kMinSeparableSize, "smaller filters take the direct kernel");
    extern __shared__ __align__(16) float shared[];  // the tile buffers, then the ring
    float* const ring = shared + kTileBuffers * P::kTileFloats;

    const int tid = threadIdx.y * kThreadsX + threadIdx.x;
    const int x0 = blockIdx.x * kTileW;
    const int xa = x0 - R - P::S::kOff;
    // Row pass: 8 consecutive lanes take 8 consecutive rows at the same 16 columns (conflict-free
    // with the odd pitches above); a warp covers 8 rows x 64 columns, the block the 32 rows.
    const int row_t = tid % kPhaseLanes + tid / (kPhaseLanes * kRowGroups) * kPhaseLanes;
    const int row_g = tid / kPhaseLanes % kRowGroups;
    // Column pass: a warp takes 64 consecutive columns, two a lane (256-byte reads and stores),
    // and 8 rows.
    const int col_x = tid % kColThreadsX * kColOutX;
    const int col_g = tid / kColThreadsX;

    // The row pass over `rows` tile rows into the ring from ring row `first` on (mod kRingRows):
    // thread (row_t, row_g) the 16 sums t(x0 + 16 row_g .., row_t), from kSpan floats (10 LDS.128
    // at k = 25 for 400 FMAs). Not clamped: the column pass sums these signed, unbounded values
    // (Sobel's are negative).
    auto row_pass = [&](const float* tile, int rows, int first) {
        if (row_t >= rows) return;
        float v[P::kSpan];
        read_span(tile + row_t * P::kTilePitch + row_g * kRowOutX, v);
        float s[kRowOutX] = {};
#pragma unroll
        for (int dx = 0; dx < K; ++dx)
#pragma unroll
            for (int p = 0; p < kRowOutX; ++p) s[p] = fmaf(c_row[dx], v[P::S::kOff + p + dx], s[p]);
        int r = first + row_t;
        if (r >= P::kRingRows) r -= P::kRingRows;  // first < kRingRows and row_t < 32 <= kRingRows
        float4* dst = reinterpret_cast<float4*>(ring + r * P::kSumPitch + row_g * kRowOutX);
#pragma unroll
        for (int q = 0; q < kRowOutX / kVec; ++q)
            dst[q] = make_float4(s[q * kVec], s[q * kVec + 1], s[q * kVec + 2], s[q * kVec + 3]);
    };

    // The column pass of the chunk at image row yb, whose rows start at ring row `base` (a
    // multiple of 8): thread (col_x, col_g) the 2 x 8 outputs out(x0 + col_x .., yb + 8 col_g ..),
    // from 8 + 2R ring rows, one LDS.64 each feeding up to 16 FMAs (32 LDS.64 for 400 FMAs at
    // k = 25). Its rows are whole ring segments, so it finds each segment once and reads the rows
    // in it at fixed offsets.
    auto column_pass = [&](int base, int yb, int ye) {
        const int x = x0 + col_x, y = yb + col_g * kColOutY;
        if (x >= out.width || y >= ye) return;  // no barrier below: threads may leave
        const float* segment[P::kColumnSegments];
#pragma unroll
        for (int s = 0; s < P::kColumnSegments; ++s)
            segment[s] = ring + (base / kColOutY + col_g + s) % P::kRingSegments * kColOutY * P::kSumPitch + col_x;
        float acc[kColOutY][kColOutX] = {};
#pragma unroll
        for (int i = 0; i < P::kColumnRows; ++i) {
            const float2 f = *reinterpret_cast<const float2*>(segment[i / kColOutY] + i % kColOutY * P::kSumPitch);
            const float v[kColOutX] = {f.x, f.y};
#pragma unroll
            for (int j = 0; j < kColOutY; ++j) {
                const int d = i - j;  // this row's tap for output row j: known at compile time
                if (d >= 0 && d < K)
#pragma unroll
                    for (int p = 0; p < kColOutX; ++p) acc[j][p] = fmaf(c_column[d], v[p], acc[j][p]);
            }
        }
        // One address, then a step of one pitch per row (not an index computation per store); a
        // float2 per row where the view allows it, else float by float (never past the width).
        const int n = min(kColOutY, ye - y);
        float* dst = out.row(y) + x;
        if (out_aligned && x + kColOutX <= out.width) {
#pragma unroll
            for (int j = 0; j < kColOutY; ++j, dst += out.pitch)
                if (j < n)
                    *reinterpret_cast<float2*>(dst) = make_float2(clamp_pixel(acc[j][0]), clamp_pixel(acc[j][1]));
            return;
        }
#pragma unroll
        for (int j = 0; j < kColOutY; ++j, dst += out.pitch)
#pragma unroll
            for (int p = 0; p < kColOutX; ++p)
                if (j < n && x + p < out.width) dst[p] = clamp_pixel(acc[j][p]);
    };

    // Uniform across the block (ys, ye and yb depend on blockIdx only): every thread meets every barrier.
    for (int ys = blockIdx.y * strip_rows; ys < in.height; ys += gridDim.y * strip_rows) {
        const int ye = min(ys + strip_rows, in.height);
        // The prologue: the 2R rows above the strip into buffer 0, its first chunk into buffer 1.
        // Both buffers are free: the previous strip's last row passes ended before its last barrier.
        stage_async<K>(shared, kHalo, in, xa, ys - R, border, in_aligned);
        __pipeline_commit();
        stage_async<K>(shared + P::kTileFloats, kTileH, in, xa, ys + R, border, in_aligned);
        __pipeline_commit();
        __pipeline_wait_prior(1);  // this thread's halo copies have landed (the first chunk may not have)
        // Read-after-write: the row pass reads tile rows other threads copied. Write-after-read:
        // it overwrites ring rows the previous strip's last column pass read.
        __syncthreads();
        row_pass(shared, kHalo, 0);
        int base = 0;  // the chunk's first ring row: 32c mod kRingRows
        for (int yb = ys, c = 0; yb < ye; yb += kTileH, ++c) {
            __pipeline_wait_prior(0);  // this thread's copies of chunk c have landed
            // Read-after-write: chunk c's tile (other threads' copies) and the ring rows above it.
            // Write-after-read: every thread is done with the row pass of chunk c - 1 (the buffer
            // the copies below overwrite) and with the column pass of chunk c - 1 (ring rows the
            // row pass below overwrites).
            __syncthreads();
            if (yb + kTileH < ye)
                stage_async<K>(shared + (c % kTileBuffers) * P::kTileFloats, kTileH, in, xa, yb + kTileH + R, border,
                               in_aligned);
            __pipeline_commit();  // one group per chunk (empty after the last one)
            const int first = base + kHalo < P::kRingRows ? base + kHalo : base + kHalo - P::kRingRows;
            row_pass(shared + (c + 1) % kTileBuffers * P::kTileFloats, kTileH, first);
            // Read-after-write: the column pass reads the row sums of every thread.
            __syncthreads();
            column_pass(base, yb, ye);
            base = base + kTileH < P::kRingRows ? base + kTileH : base + kTileH - P::kRingRows;
        }
    }
}

// Whether every row of the view starts on a kBytes boundary (kBytes-wide accesses are then aligned).
template <std::size_t kBytes, class T>
bool aligned(View<T> v) {
    return reinterpret_cast<std::uintptr_t>(v.data) % kBytes == 0 && v.pitch * sizeof(T) % kBytes == 0;
}

// Separable strips: at most kMaxChunksPerStrip chunks tall, as many as make the blocks fill their
// waves. A wave of `resident` blocks lasts about one strip: its chunks, plus its prologue (the
// halo, staged as one chunk, and its row sums) before any load overlaps any sum. So c-chunk
// strips cost waves(c) x (c + prologue), and a last wave of a few blocks costs a whole strip:
// with 8-chunk strips at 8192^2 and k = 25 (3 blocks an SM), 2048 blocks made 5.2 waves, and
// Nsight Compute found the SMs idle 17% of the kernel's time. Ties go to the taller strip.
int strip_rows_for(int width, int height, int resident, int halo_rows) {
    const long long columns = ceil_div(width, kTileW);
    const long long chunks = ceil_div(height, kTileH);
    const double prologue = 1.0 + static_cast<double>(halo_rows) / kTileH;
    int best = 1;
    double best_cost = 0;
    for (int c = 1; c <= kMaxChunksPerStrip; ++c) {
        const long long waves = ceil_div(columns * ceil_div(chunks, static_cast<long long>(c)), static_cast<long long>(resident));
        const double cost = static_cast<double>(waves) * (c + prologue);
        if (c == 1 || cost <= best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best * kTileH;
}

// Launches the separable kernel; false when the GPU cannot give a block its shared memory (the
// caller then runs the direct kernel).
template <int K>
bool launch_separable(Input in, Output out, Border border, GpuContext& ctx) {
    constexpr std::size_t kBytes = SeparableShape<K>::kSharedBytes;
    int device = 0, sms = 0, max_shared = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (kBytes > static_cast<std::size_t>(max_shared)) return false;
    // Past 48 KB a kernel must ask for its dynamic shared memory.
    CUDA_CHECK(cudaFuncSetAttribute(separable_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kBytes)));
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, separable_kernel<K>, kThreads, kBytes));
    const int strip_rows =
        strip_rows_for(in.width, in.height, std::max(per_sm, 1) * std::max(sms, 1), SeparableShape<K>::kHalo);
    const dim3 grid(ceil_div(in.width, kTileW), std::min(ceil_div(in.height, strip_rows), kMaxGridY));
    separable_kernel<K><<<grid, dim3(kThreadsX, kThreadsY), kBytes, ctx.stream>>>(
        in, out, border, aligned<sizeof(float4)>(in), aligned<sizeof(float2)>(out), strip_rows);
    CUDA_CHECK(cudaGetLastError());
    return true;
}

template <int K>
void launch(Input in, Output out, bool separable, Border border, GpuContext& ctx) {
    if constexpr (K >= kMinSeparableSize)
        if (separable && launch_separable<K>(in, out, border, ctx)) return;
    const dim3 grid(ceil_div(in.width, kTileW), std::min(ceil_div(in.height, kTileH), kMaxGridY));
    direct_kernel<K><<<grid, dim3(kThreadsX, kThreadsY), 0, ctx.stream>>>(in, out, border, aligned<sizeof(float4)>(in),
                                                                          aligned<sizeof(float4)>(out));
    CUDA_CHECK(cudaGetLastError());
}

// Calls launch<K> for the compiled size K == size (a fold over kCompiled: one comparison each).
template <std::size_t... I>
void dispatch(std::index_sequence<I...>, int size, Input in, Output out, bool separable, Border border,
              GpuContext& ctx) {
    ((size == kCompiled[I] ? launch<kCompiled[I]>(in, out, separable, border, ctx) : void()), ...);
}

void check_size(int size, const char* who) {
    if (size < 1 || size > kMaxFilterSize || size % 2 == 0)
        throw std::invalid_argument(std::string(who) + ": size must be odd, 1 to kMaxFilterSize");
}

}  // namespace

void set_weights_expert(const float* weights, const float* row, const float* column, int size, GpuContext& ctx) {
    check_size(size, "set_weights_expert");
    const int k = compiled_size(size), pad = (k - size) / 2;
    // The caller's filter in the middle of the compiled one; the zeros around it add nothing.
    // (A copy from pageable memory returns once the source has been read: the arrays may go.)
    std::array<float, kMaxWeights> padded{};
    for (int dy = 0; dy < size; ++dy)
        for (int dx = 0; dx < size; ++dx) padded[(dy + pad) * k + dx + pad] = weights[dy * size + dx];
    CUDA_CHECK(cudaMemcpyToSymbolAsync(g_weights, padded.data(), sizeof(float) * k * k, 0, cudaMemcpyHostToDevice,
                                       ctx.stream));
    if (row != nullptr && column != nullptr) {
        std::array<float, kMaxFilterSize> r{}, c{};
        std::copy(row, row + size, r.begin() + pad);
        std::copy(column, column + size, c.begin() + pad);
        CUDA_CHECK(cudaMemcpyToSymbolAsync(c_row, r.data(), sizeof(float) * k, 0, cudaMemcpyHostToDevice, ctx.stream));
        CUDA_CHECK(
            cudaMemcpyToSymbolAsync(c_column, c.data(), sizeof(float) * k, 0, cudaMemcpyHostToDevice, ctx.stream));
    }
}

void convolve_expert(Input in, Output out, int size, bool separable, Border border, GpuContext& ctx) {
    check_size(size, "convolve_expert");
    if (in.width == 0 || in.height == 0) return;  // a zero-block grid is a launch error
    dispatch(std::make_index_sequence<kCompiled.size()>(), compiled_size(size), in, out, separable, border, ctx);
}
// starter: end

}  // namespace convolution
