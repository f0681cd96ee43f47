// 06 — Expert: the whole equalization near the memory floor (optional challenge)
// Changes vs 03 + 04 + 05: the building blocks become three kernels written for 8192^2 images:
//   1. histogram: 16-byte loads, 16 pixels per load, four loads in flight per thread, one wave of
//      blocks striding over the image. A block keeps 32 copies of the histogram in shared memory,
//      one per lane index, laid out so that lane l's counters are all in bank l: no two lanes of
//      an atomic instruction ever share a bank, so uniform noise has no bank conflicts, and a
//      90%-white or one-valued image no contention on one counter: every pattern costs the same,
//      about what the loads alone cost. One merge into the global histogram per block.
//   2. LUT: one block of 256 threads scans the 256 bins with warp shuffles (04's scan without its
//      log2(256) barriers) and normalizes in the same kernel (05's normalize), in 64-bit.
//   3. map: 16-byte loads and stores, the LUT in shared memory, and the image walked backwards:
//      the histogram read the end of the image last, so the map finds part of it still in L2
//      (measured: 44.4 us against 46.5 us walking forwards).
// Cost: 1 B/px read (histogram) + 1 B/px read and 1 B/px written (map): 3 B/px, the floor of any
//   two-pass method (the contract's min_bytes_per_pixel), less what the map reads from L2. Besides
//   the pixels: 1 KiB of histogram and 256 B of LUT, 256 global atomics per histogram block (one
//   wave: a few hundred blocks). Per pixel: a byte extract, an address and one shared atomic.
//   Shared memory: 32 KiB of counters per histogram block, 256 B of LUT per map block.
//   Measured on an H100 at 8192^2 by the grader (docs/results.md): 0.086 ms on noise, on the
//   90%-white image and on one value alike, 78% of copy bandwidth on 3 B/px; the histogram stage
//   (with its memset) at 63% of copy on 1 B/px, about 35 us; LUT 4 + 1 us; the map at 100% of
//   copy on 2 B/px (part of its reads hit L2).
// Limits: memory-bound at 8192^2 (one memset and three launches: a few microseconds of launch
//   gaps, which is what small images measure). Views that are not 16-byte aligned (data or pitch)
//   are read and written byte by byte, as is the ragged end of each row (its last width % 16
//   pixels); images up to 2^32 - 1 pixels (uint32 counters).
// Ref: Gómez-Luna et al. 2013, "An optimized approach to histogram computation on GPU" (replicated
//   sub-histograms, one per bank); PMPP 4th ed., ch. 9 (privatization, aggregation, coarsening);
//   NVIDIA, "CUDA C++ Best Practices Guide" (128-bit accesses, grid-stride loops, one wave).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/cuda_check.hpp"
#include "labkit/image_pool.hpp"
#include "labkit/launch.hpp"

namespace histogram_equalization {
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
constexpr int kHistogramThreads = 512;   // 32 KiB of counters shared by 16 warps; at 40 registers, 3 blocks fit an SM
                                         // (forcing 32 registers for a 4th measured no faster)
constexpr int kCopies = kWarpSize;       // histogram copies per block: one per lane index, one per bank
constexpr int kCounters = kLevels * kCopies;                   // 8192 uint32: 32 KiB
constexpr int kMapThreads = 256;
constexpr int kLutThreads = kLevels;     // one thread per bin
constexpr int kLutWarps = kLutThreads / kWarpSize;
static_assert(kCounters % kVectorWords == 0, "the counters are zeroed 16 bytes at a time");
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

// 16 pixels into the histogram: one shared atomic each, into this lane's copy (`mine`, the
// counter of value v at mine[v * 32], always in bank `lane`). No two lanes of an atomic
// instruction ever touch one bank, let alone one counter, so a skewed or a one-valued image costs
// what noise costs: the contention that remains is between warps, whose instructions the shared
// memory applies one after the other anyway. (Counting pixels equal to a "hot" value in a
// register first, to skip their atomics, measured 25 to 35% slower on noise and on the skewed
// image and no faster on one value: its per-pixel branch costs more than the conflict-free atomic
// it saves.)
__device__ __forceinline__ void count_vector(uint4 v, u32* mine) {
    const u32 words[kVectorWords] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < kVectorBytes; ++k)
        atomicAdd(mine + byte_of(words[k / kBytesPerWord], k % kBytesPerWord) * kCopies, 1u);
}

// The first n < 16 pixels of a vector (the ragged end of a row): one atomic each.
__device__ __forceinline__ void count_partial(uint4 v, int n, u32* mine) {
    const u32 words[kVectorWords] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < kVectorBytes; ++k)
        if (k < n) atomicAdd(mine + byte_of(words[k / kBytesPerWord], k % kBytesPerWord) * kCopies, 1u);
}

// Kernel 1. The image is walked as rows of vectors (vectors_per_row = ceil(width / 16)), vector
// (x, y) covering pixels 16x .. 16x + 15 of row y; threads stride over them, warps coalesced.
__global__ void __launch_bounds__(kHistogramThreads)
    histogram_kernel(Input in, u32* __restrict__ hist, int vectors_per_row, bool packets) {
    // counters[v * 32 + l]: pixels of value v counted by lane l of any warp of this block.
    __shared__ __align__(16) u32 counters[kCounters];
    for (int i = threadIdx.x; i < kCounters / kVectorWords; i += blockDim.x)
        reinterpret_cast<uint4*>(counters)[i] = uint4{0, 0, 0, 0};
    // Every counter is zero before anyone counts into it.
    __syncthreads();

    u32* mine = counters + threadIdx.x % kWarpSize;
    const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    labkit::PixelStride p(first, static_cast<long long>(gridDim.x) * blockDim.x, vectors_per_row);
    while (p.y < in.height) {
        // kBatch loads first, then the counting: the loads overlap each other's latency.
        uint4 v[kBatch];
        int n[kBatch];
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
            n[j] = 0;
            v[j] = uint4{0, 0, 0, 0};
            if (p.y < in.height) {
                const int x0 = p.x * kVectorBytes;
                n[j] = pixels_in_row(x0, in.width);
                v[j] = load_vector(in.row(p.y) + x0, n[j], packets);
                p.next();
            }
        }
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
            if (n[j] == kVectorBytes)
                count_vector(v[j], mine);
            else
                count_partial(v[j], n[j], mine);
        }
    }
    // Every thread of the block has counted before the copies are summed.
    __syncthreads();
    // Thread v sums the 32 copies of bin v, starting at copy v % 32: the 32 lanes of a warp read
    // 32 different banks at each step (in copy order they would all read bank i at step i).
    for (int v = threadIdx.x; v < kLevels; v += blockDim.x) {
        u32 sum = 0;
#pragma unroll
        for (int i = 0; i < kCopies; ++i) sum += counters[v * kCopies + (i + v) % kCopies];
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

// Kernel 3: the same walk as kernel 1, backwards (vector i is the (total - 1 - i)-th): the first
// vectors this kernel reads are the last ones the histogram read, some of them still in L2.
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
    // 32 KiB of shared memory per histogram block: the largest carveout lets several share an SM.
    CUDA_CHECK(cudaFuncSetAttribute(histogram_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&histogram_per_sm, histogram_kernel, kHistogramThreads, 0));
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
    histogram_kernel<<<grid(d.histogram_wave, kHistogramThreads, vectors), kHistogramThreads, 0, ctx.stream>>>(
        in, hist, vectors_per_row, aligned16(in));
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

}  // namespace histogram_equalization
