// starter: generates labs/histogram_equalization/06_expert.cu
// starter: step optional challenge (bonus): the whole GPU equalization near the 3 B/px floor
// starter: prompt
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
// starter: solution
// 06 — Expert: the whole equalization near the memory floor (optional challenge)
// Changes vs 03 + 04 + 05: the building blocks become three kernels written for 8192^2 images:
//   1. histogram: 16-byte loads, 16 pixels per load, four loads in flight per thread, one wave of
//      blocks striding over the image's whole 16-pixel vectors (the ragged end of each row after).
//      A block keeps 64 copies of the histogram in shared memory, two sets of one per lane index,
//      laid out so that lane l's counters are all in bank l: no two lanes of an atomic
//      instruction ever share a bank, so uniform noise has no bank conflicts, and a 90%-white or
//      one-valued image no contention on one counter: every pattern costs the same. A bin's 64
//      counters span 256 bytes, so the byte offset of a pixel's counter is the pixel in byte 1
//      and lane * 4 in byte 0: one byte permute (PRMT) builds it, and a pixel costs one ALU
//      instruction and one shared atomic. Why: Nsight Compute on the earlier version (32 copies,
//      128-byte rows: a shift, two masks and an add to each address, and a 64-bit multiply to each
//      vector's) counted 8.8 instructions a pixel, its ALU pipe the busiest at 67% and DRAM at
//      54%: instructions, not the shared atomics (memory pipes 30% busy) nor the loads, were its
//      limit. The walk now steps a byte offset (an add and a compare a vector), and each thread's
//      first loads are in flight while its block zeroes the counters. One merge into the global
//      histogram per block.
//   2. LUT: one block of 256 threads scans the 256 bins with warp shuffles (04's scan without its
//      log2(256) barriers) and normalizes in the same kernel (05's normalize), in 64-bit.
//   3. map: 16-byte loads and stores, the LUT in shared memory, and the image walked backwards:
//      the histogram read the end of the image last, so the map finds part of it still in L2
//      (measured: 44.4 us against 46.5 us walking forwards).
// Cost: 1 B/px read (histogram) + 1 B/px read and 1 B/px written (map): 3 B/px, the floor of any
//   two-pass method (the contract's min_bytes_per_pixel), less what the map reads from L2. Besides
//   the pixels: 1 KiB of histogram and 256 B of LUT, 256 global atomics per histogram block (one
//   wave: a few hundred blocks). Per pixel: a PRMT and one shared atomic; per 16-pixel vector
//   about a dozen instructions of walk and load besides. Shared memory: 64 KiB of counters per
//   histogram block (3 blocks of 512 threads an SM, as registers allow), 256 B of LUT per map block.
//   Measured on an H100 at 8192^2 by the grader (docs/results.md), kernels only: 0.080 ms on
//   noise, on the 90%-white image and on one value alike (the earlier histogram: 0.086 ms), 84%
//   of copy bandwidth on 3 B/px; the histogram stage, memset and launch included, 30.1 to 30.2 us
//   (earlier: 35 us), 74% of copy on 1 B/px; LUT 4 + 1 us; the map at 100% of copy on 2 B/px
//   (part of its reads hit L2).
// Limits: memory-bound at 8192^2, with one memset and three launches: a few microseconds of
//   launch gaps, which is what small images measure. Hiding the memset behind the histogram
//   kernel with programmatic dependent launch (a zeroing kernel that lets the histogram kernel
//   start at once, which waits for it only before its merge) measured 30.0 to 30.8 us in the same
//   call: no gain, so the memset stays. Views that are not 16-byte aligned (data or pitch)
//   are read and written byte by byte, as is the ragged end of each row (its last width % 16
//   pixels); images up to 2^32 - 1 pixels (uint32 counters).
// Ref: Gómez-Luna et al. 2013, "An optimized approach to histogram computation on GPU" (replicated
//   sub-histograms, one per bank); PMPP 4th ed., ch. 9 (privatization, aggregation, coarsening);
//   NVIDIA, "CUDA C++ Best Practices Guide" (128-bit accesses, grid-stride loops, one wave);
//   NVIDIA, "PTX ISA" (prmt: the byte permute behind __byte_perm).
// starter: end
// starter: solution
#include <algorithm>
#include <cstddef>
// starter: end
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
// starter: instead #include "labkit/errors.hpp"
#include "labkit/image_pool.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {
// starter: prompt
//>
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
//>
//> void histogram_equalization_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out,
                                   //> [[maybe_unused]] GpuContext& ctx) {
    //> throw labkit::NotImplemented("histogram_equalization_expert (06_expert.cu): optional challenge");
//> }
// starter: solution
namespace {

using labkit::kFullMask, labkit::kWarpSize;
using u8 = std::uint8_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr int kVectorBytes = 16;                               // pixels per uint4 load or store
constexpr int kBytesPerWord = 4;                               // pixels per uint32 of a uint4
constexpr int kVectorWords = kVectorBytes / kBytesPerWord;     // 4
constexpr int kBitsPerByte = 8;
constexpr u32 kByteMask = 0xffu;
constexpr int kBatch = 4;                // uint4 loads a thread issues before it uses the first: 64 B in flight
constexpr int kHistogramThreads = 512;   // 64 KiB of counters shared by 16 warps; at 40 registers, 3 blocks fit an SM
constexpr int kCopies = kWarpSize;       // copies per set: one per lane index, one per bank
constexpr int kSets = 2;                 // sets of copies: even pixels of a vector count into one, odd into the other
constexpr int kRowWords = kSets * kCopies;                     // a bin's counters: 64 words
constexpr int kRowBytes = kRowWords * static_cast<int>(sizeof(u32));
constexpr int kCounters = kLevels * kRowWords;                 // 16384 uint32
constexpr int kCounterBytes = kCounters * static_cast<int>(sizeof(u32));  // 64 KiB: dynamic shared memory
constexpr int kMapThreads = 256;
constexpr int kLutThreads = kLevels;     // one thread per bin
constexpr int kLutWarps = kLutThreads / kWarpSize;
static_assert(kCounters % kVectorWords == 0, "the counters are zeroed 16 bytes at a time");
static_assert(kRowBytes == 1 << kBitsPerByte, "a bin's row is 256 bytes: the pixel is its offset's second byte");
static_assert(kCopies * sizeof(u32) <= kByteMask + 1, "a lane's byte offset in its set fits the offset's first byte");
static_assert(kHistogramThreads >= kLevels, "the merge gives each bin one thread");
static_assert(kLutThreads % kWarpSize == 0, "the LUT's scan is whole warps");

// Scratch slots of this file in the workspace (the pipeline's own slots are the kit's; a runner
// runs one variant at a time, and a slot grows to the largest size it is asked for).
enum class Scratch { histogram, lut };

// The byte k of a word.
__device__ __forceinline__ u32 byte_of(u32 word, int k) { return (word >> (kBitsPerByte * k)) & kByteMask; }

// The n <= 16 pixels at `at`, packed 4 to a word as in memory: one 16-byte load when the view is
// aligned and all 16 are inside the row, byte by byte otherwise (the bytes past n stay 0 and are
// never counted or stored: nothing past the ragged edge is read).
__device__ __forceinline__ uint4 load_vector(const u8* at, int n, bool packets) {
    if (packets && n == kVectorBytes) return *reinterpret_cast<const uint4*>(at);
    u32 w[kVectorWords] = {0, 0, 0, 0};
#pragma unroll
    for (int k = 0; k < kVectorBytes; ++k)
        if (k < n) w[k / kBytesPerWord] |= u32{at[k]} << (kBitsPerByte * (k % kBytesPerWord));
    return {w[0], w[1], w[2], w[3]};
}

// Pixels of the vector whose first pixel is x0 that lie inside a row of `width`.
__device__ __forceinline__ int pixels_in_row(int x0, int width) { return min(kVectorBytes, width - x0); }

// __byte_perm(x, y, s)'s selector: byte i of the result is byte b_i of the 8 bytes of x (0..3)
// and y (4..7), b_i the i-th 4-bit field of s.
constexpr u32 byte_selector(u32 b0, u32 b1, u32 b2, u32 b3) {
    constexpr int kFieldBits = 4;
    return b0 | b1 << kFieldBits | b2 << (2 * kFieldBits) | b3 << (3 * kFieldBits);
}

// The byte offset of the counter of pixel `byte` (0..3) of `word` in set 0 for the lane whose
// counters are lane_bytes (lane * 4, < 256) into a row: pixel * 256 + lane_bytes, built by one
// byte permute (PRMT): byte 0 from lane_bytes, byte 1 the pixel, bytes 2 and 3 lane_bytes' zeros.
__device__ __forceinline__ u32 counter_offset(u32 word, int byte, u32 lane_bytes) {
    constexpr u32 kLane = kBytesPerWord;  // lane_bytes' byte 0 (its bytes 1 and 2 are zero)
    return __byte_perm(word, lane_bytes, byte_selector(kLane, static_cast<u32>(byte), kLane + 1, kLane + 2));
}

// Pixel k of a vector (its byte k % 4 of word k / 4) into the histogram: one shared atomic into
// this lane's copy in set k % 2. counters[v * 64 + s * 32 + l] is in bank l for every value v
// and set s, so no two lanes of an atomic instruction ever touch one bank, let alone one counter:
// a skewed or a one-valued image costs what noise costs. The address is one PRMT from the pixel
// (and the set an immediate offset): per pixel one ALU instruction and one atomic.
__device__ __forceinline__ void count_pixel(u32* counters, const u32 (&words)[kVectorWords], int k, u32 lane_bytes) {
    auto* row0 = reinterpret_cast<u8*>(counters + (k % kSets) * kCopies);
    atomicAdd(reinterpret_cast<u32*>(row0 + counter_offset(words[k / kBytesPerWord], k % kBytesPerWord, lane_bytes)),
              1u);
}

// 16 pixels into the histogram. (Counting pixels equal to a "hot" value in a register first, to
// skip their atomics, measured 25 to 35% slower on noise and on the skewed image and no faster on
// one value, in the earlier version: its per-pixel branch costs more than the conflict-free atomic
// it saves.)
__device__ __forceinline__ void count_vector(uint4 v, u32* counters, u32 lane_bytes) {
    const u32 words[kVectorWords] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < kVectorBytes; ++k) count_pixel(counters, words, k, lane_bytes);
}

// The first n < 16 pixels of a vector (the ragged end of a row).
__device__ __forceinline__ void count_partial(uint4 v, int n, u32* counters, u32 lane_bytes) {
    const u32 words[kVectorWords] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < kVectorBytes; ++k)
        if (k < n) count_pixel(counters, words, k, lane_bytes);
}

// A thread's walk over the body of the image: the image is `full` = width / 16 whole vectors per
// row (the body), plus, when width is not a multiple of 16, one partial vector of width % 16
// pixels ending each row (the ragged column). Threads stride over the body's vectors in row
// order, warps coalesced: thread g of T takes vectors g, g + T, g + 2T, ..., each at a constant
// byte step from the one before, plus a row's slack (pitch - 16 * full) when the walk wraps past
// the end of a row: a 64-bit add and a compare a vector, no multiply.
class BodyWalk {
public:
    BodyWalk() = default;
    __device__ BodyWalk(Input in, int thread, int threads)
        : full_(in.width / kVectorBytes), step_x_(threads % full_), x_(thread % full_),
          step_(threads / full_ * in.pitch + static_cast<std::size_t>(step_x_) * kVectorBytes),
          slack_(in.pitch - static_cast<std::size_t>(full_) * kVectorBytes),
          at_(thread / full_ * in.pitch + static_cast<std::size_t>(x_) * kVectorBytes) {}

    // The next vector of this thread's walk.
    __device__ uint4 next(Input in, bool packets) {
        const uint4 v = load_vector(in.data + at_, kVectorBytes, packets);
        at_ += step_;
        x_ += step_x_;
        if (x_ >= full_) {
            x_ -= full_;
            at_ += slack_;
        }
        return v;
    }

private:
    int full_ = 0, step_x_ = 0;  // vectors: whole ones in a row, and the column step
    int x_ = 0;                  // the next vector's column
    std::size_t step_ = 0, slack_ = 0;
    std::size_t at_ = 0;  // the next vector's byte offset
};

// Kernel 1: the body, then the ragged column (one partial vector a row), into the block's
// counters; then one merge of them into the global histogram.
__global__ void __launch_bounds__(kHistogramThreads) histogram_kernel(Input in, u32* __restrict__ hist, bool packets) {
    // One wave of blocks: the grid's threads, and the body's vectors (at most 2^32 / 16), fit an int.
    const int threads = static_cast<int>(gridDim.x * blockDim.x);
    const int thread = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int body = in.width / kVectorBytes * in.height;
    BodyWalk walk;
    int left = 0;  // body vectors this thread has still to load
    if (thread < body) {
        walk = BodyWalk(in, thread, threads);
        left = (body - 1 - thread) / threads + 1;
    }
    // kBatch loads, then their counting: the loads overlap each other's latency. The first batch
    // is asked for before the counters are zeroed, which then costs nothing.
    uint4 batch[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
        if (j < left) batch[j] = walk.next(in, packets);

    // counters[v * 64 + s * 32 + l]: pixels of value v counted in set s by lane l of any warp of
    // this block (64 KiB: dynamic shared memory, over the 48 KiB a static array may have).
    extern __shared__ uint4 dynamic_shared[];
    u32* counters = reinterpret_cast<u32*>(dynamic_shared);
    for (int i = threadIdx.x; i < kCounters / kVectorWords; i += blockDim.x)
        dynamic_shared[i] = uint4{0, 0, 0, 0};
    // Every counter is zero before anyone counts into it.
    __syncthreads();

    const u32 lane_bytes = threadIdx.x % kWarpSize * sizeof(u32);
    while (left > 0) {
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
            if (j < left) count_vector(batch[j], counters, lane_bytes);
        left -= kBatch;
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
            if (j < left) batch[j] = walk.next(in, packets);
    }
    // The ragged column, a vector a row (y unsigned: y + threads passes INT_MAX on the tallest images).
    const int full = in.width / kVectorBytes, ragged = in.width % kVectorBytes;
    if (ragged != 0)
        for (u32 y = thread; y < static_cast<u32>(in.height); y += threads)
            count_partial(load_vector(in.row(static_cast<int>(y)) + full * kVectorBytes, ragged, packets), ragged,
                          counters, lane_bytes);
    // Every thread of the block has counted before the copies are summed.
    __syncthreads();
    // Thread v sums the 64 counters of bin v, starting at counter v % 64: the 32 lanes of a warp
    // read 32 different banks at each step (in counter order they would all read bank i at step i).
    for (int v = threadIdx.x; v < kLevels; v += blockDim.x) {
        u32 sum = 0;
#pragma unroll
        for (int i = 0; i < kRowWords; ++i) sum += counters[v * kRowWords + (i + v) % kRowWords];
        if (sum != 0) atomicAdd(&hist[v], sum);
    }
}

// Kernel 2: the CDF by warp shuffles (an inclusive scan per warp, then the totals of the warps
// before), cdf_min, and the contract's LUT, in 64-bit arithmetic. One block, one thread per bin.
__global__ void __launch_bounds__(kLutThreads) lut_kernel(const u32* __restrict__ hist, u8* __restrict__ lut,
                                                           u64 pixels) {
    __shared__ u64 warp_totals[kLutWarps];
    __shared__ u64 cdf_min;
    const int v = threadIdx.x, lane = v % kWarpSize, warp = v / kWarpSize;
    const u64 count = hist[v];
    u64 cdf = count;
#pragma unroll
    for (int d = 1; d < kWarpSize; d *= 2) {
        const u64 left = __shfl_up_sync(kFullMask, cdf, d);
        if (lane >= d) cdf += left;
    }
    if (lane == kWarpSize - 1) warp_totals[warp] = cdf;
    // Every warp's total is written before a warp adds those of the warps before it.
    __syncthreads();
    for (int w = 0; w < warp; ++w) cdf += warp_totals[w];
    // The first non-empty bin is the one whose CDF is its own count: exactly one thread writes.
    if (count != 0 && cdf == count) cdf_min = cdf;
    // cdf_min is written before anyone reads it (the image is not empty, so some bin is not).
    __syncthreads();
    const u64 span = pixels - cdf_min;
    if (span == 0)
        lut[v] = static_cast<u8>(v);  // a single-valued image is its own output
    else
        lut[v] = static_cast<u8>(cdf == 0 ? 0 : ((cdf - cdf_min) * (kLevels - 1) + span / 2) / span);
}

// 16 pixels through the LUT: 16 shared-memory byte lookups. The 256-byte table is 64 words, two
// per bank, so a lookup instruction has at most two-way bank conflicts.
__device__ __forceinline__ uint4 map_vector(uint4 v, const u8* table) {
    u32 words[kVectorWords] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int w = 0; w < kVectorWords; ++w) {
        u32 mapped = 0;
#pragma unroll
        for (int k = 0; k < kBytesPerWord; ++k) mapped |= u32{table[byte_of(words[w], k)]} << (kBitsPerByte * k);
        words[w] = mapped;
    }
    return {words[0], words[1], words[2], words[3]};
}

// Kernel 3: the image's vectors in row order, each row's ragged one included (vectors_per_row =
// ceil(width / 16)), walked backwards (vector i is the (total - 1 - i)-th): the first vectors this
// kernel reads are the last rows, which kernel 1's walk read last, some of them still in L2.
__global__ void __launch_bounds__(kMapThreads)
    map_kernel(Input in, Output out, const u8* __restrict__ lut, int vectors_per_row, bool packets_in,
               bool packets_out) {
    __shared__ u8 table[kLevels];
    for (int v = threadIdx.x; v < kLevels; v += blockDim.x) table[v] = lut[v];
    // The whole table is loaded before any pixel looks it up.
    __syncthreads();

    const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    labkit::PixelStride p(first, static_cast<long long>(gridDim.x) * blockDim.x, vectors_per_row);
    while (p.y < in.height) {
        uint4 v[kBatch];
        int n[kBatch], x0[kBatch], y[kBatch];
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
            n[j] = 0;
            x0[j] = 0;
            y[j] = 0;
            v[j] = uint4{0, 0, 0, 0};
            if (p.y < in.height) {
                y[j] = in.height - 1 - p.y;
                x0[j] = (vectors_per_row - 1 - p.x) * kVectorBytes;
                n[j] = pixels_in_row(x0[j], in.width);
                v[j] = load_vector(in.row(y[j]) + x0[j], n[j], packets_in);
                p.next();
            }
        }
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
            if (n[j] == 0) continue;
            const uint4 mapped = map_vector(v[j], table);
            u8* at = out.row(y[j]) + x0[j];
            if (packets_out && n[j] == kVectorBytes) {
                *reinterpret_cast<uint4*>(at) = mapped;
            } else {
                const u32 words[kVectorWords] = {mapped.x, mapped.y, mapped.z, mapped.w};
#pragma unroll
                for (int k = 0; k < kVectorBytes; ++k)
                    if (k < n[j]) at[k] = static_cast<u8>(byte_of(words[k / kBytesPerWord], k % kBytesPerWord));
            }
        }
    }
}

// Rows can be read (or written) 16 bytes at a time when the first row and the pitch are aligned.
template <class T>
bool aligned16(View<T> v) {
    return reinterpret_cast<std::uintptr_t>(v.data) % kVectorBytes == 0 && v.pitch * sizeof(T) % kVectorBytes == 0;
}

// What the launches need to know of the device, asked once per device (these queries take
// microseconds of host time, and the stage clock is already running when this file is called).
struct Device {
    int id = -1;
    long long histogram_wave = 1;  // blocks of each kernel the device holds at once
    long long map_wave = 1;
};

const Device& device() {
    static Device d;
    int id = 0;
    CUDA_CHECK(cudaGetDevice(&id));
    if (id == d.id) return d;
    int sms = 0, histogram_per_sm = 0, map_per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, id));
    // 64 KiB of dynamic shared memory per histogram block: allowed past the default 48 KiB, and the
    // largest carveout lets several blocks share an SM.
    CUDA_CHECK(cudaFuncSetAttribute(histogram_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kCounterBytes));
    CUDA_CHECK(cudaFuncSetAttribute(histogram_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&histogram_per_sm, histogram_kernel, kHistogramThreads,
                                                             kCounterBytes));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&map_per_sm, map_kernel, kMapThreads, 0));
    d = {id, static_cast<long long>(std::max(sms, 1)) * std::max(histogram_per_sm, 1),
         static_cast<long long>(std::max(sms, 1)) * std::max(map_per_sm, 1)};
    return d;
}

// One wave of blocks (grid-stride loops do the rest), or fewer when there is not a vector per thread.
unsigned grid(long long wave, int threads, long long vectors) {
    return static_cast<unsigned>(std::min(wave, labkit::ceil_div(vectors, threads)));
}

}  // namespace

void histogram_equalization_expert(Input in, Output out, GpuContext& ctx) {
    if (in.width == 0 || in.height == 0) return;
    auto* hist = ctx.workspace->get<u32>(Scratch::histogram, kLevels);
    auto* lut = ctx.workspace->get<u8>(Scratch::lut, kLevels);
    const int vectors_per_row = labkit::ceil_div(in.width, kVectorBytes);
    const long long vectors = static_cast<long long>(vectors_per_row) * in.height;

    // Stage 1, the histogram (the global one starts from zero: the workspace keeps old counts).
    const Device& d = device();
    CUDA_CHECK(cudaMemsetAsync(hist, 0, kLevels * sizeof(u32), ctx.stream));
    histogram_kernel<<<grid(d.histogram_wave, kHistogramThreads, vectors), kHistogramThreads, kCounterBytes,
                       ctx.stream>>>(in, hist, aligned16(in));
    CUDA_CHECK(cudaGetLastError());
    labkit::end_stage(ctx);

    // Stages 2 and 3, scan and normalize, in one kernel: the second mark follows the first at once
    // (the grader's columns are the contract's four stages; "normalize" shows about 0 us).
    lut_kernel<<<1, kLutThreads, 0, ctx.stream>>>(hist, lut, static_cast<u64>(in.width) * in.height);
    CUDA_CHECK(cudaGetLastError());
    labkit::end_stage(ctx);
    labkit::end_stage(ctx);

    // Stage 4, the map.
    map_kernel<<<grid(d.map_wave, kMapThreads, vectors), kMapThreads, 0, ctx.stream>>>(
        in, out, lut, vectors_per_row, aligned16(in), aligned16(out));
    CUDA_CHECK(cudaGetLastError());
    labkit::end_stage(ctx);
}
// starter: end

}  // namespace histogram_equalization
