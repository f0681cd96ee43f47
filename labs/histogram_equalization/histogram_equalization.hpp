// Lab 2 — histogram equalization: the one interface every file of the lab shares.
//
// Contract: in and out are 8-bit gray W x H images, L = 256 levels, N = W * H pixels.
//   hist[v] = number of pixels of value v;  cdf[v] = hist[0] + ... + hist[v];
//   cdf_min = the first non-zero cdf value;
//   lut[v]  = ((cdf[v] - cdf_min) * (L - 1) + (N - cdf_min) / 2) / (N - cdf_min)   (integers: the
//             rounded normalized CDF, round half up), and 0 for values below the first non-zero bin;
//   out(x, y) = lut[in(x, y)].
// (cdf[v] - cdf_min) * 255 passes 2^32 once N passes about 16.8 Mpixel: the arithmetic is 64-bit.
// A single-valued image (N == cdf_min) is its own output.
//
// The GPU pipeline is  histogram -> scan of the 256 bins -> normalize (the LUT) -> equalize.
// Students write the building blocks below (the numbered files of labs/histogram_equalization/);
// the kit (kit/) composes them into the variants of kit/tables.cpp, and the grader checks them
// against its own reference and times every stage.
#pragma once

#include <cstdint>

#include "labkit/gpu_context.hpp"
#include "labkit/image.hpp"
#include "labkit/not_for_students.hpp"

namespace histogram_equalization {

using labkit::GpuContext;
using labkit::View;

using Input = View<const std::uint8_t>;
using Output = View<std::uint8_t>;

inline constexpr int kLevels = 256;  // gray levels: the histogram's bins

struct Tuning {
    int block_size = 256;  // threads per block of the histogram and equalize kernels: 256 or 512
};

// ---- CPU ---------------------------------------------------------------------------------------
// The baseline, cpu-sequential, is the grader's reference (kit/reference.cpp): it is not linked
// with your code, and a call to it stops the build with this message.
LABKIT_NOT_FOR_STUDENTS("cpu_sequential is the grader's reference and is not linked with student code: write your own loops")
void cpu_sequential(Input in, Output out);
// Student: private histograms per thread, merged; then the map, in parallel (cpu_openmp.cpp).
void cpu_openmp(Input in, Output out, int threads);
// The expert tier (optional challenge, bonus points): the same contract, as fast as memory allows
// (cpu_openmp_expert.cpp).
void cpu_openmp_expert(Input in, Output out, int threads);

// ---- GPU building blocks ------------------------------------------------------------------------
// All device arrays below have kLevels elements and live on the device. The kit zeroes `hist`
// before each histogram call.

// The workspace's slots (ctx.workspace->get<T>(slot, n)) while a pipeline runs: its three arrays
// (kit/pipeline.cpp), and what a histogram function asks for besides them. 06_expert.cu, which is
// not a pipeline, numbers its own.
enum class PipelineScratch { histogram, cdf, lut, padded_counters };

// hist[v] += number of pixels of value v.
using HistogramFn = void (*)(Input in, std::uint32_t* hist, const Tuning& tuning, GpuContext& ctx);
// cdf[v] = hist[0] + ... + hist[v] (inclusive), one block.
using ScanFn = void (*)(const std::uint32_t* hist, std::uint32_t* cdf, GpuContext& ctx);

// 01_global_atomics.cu: one atomicAdd on the global histogram per pixel.
void histogram_global_atomics(Input in, std::uint32_t* hist, const Tuning& tuning, GpuContext& ctx);
// 01_global_atomics.cu, experiment 1c: the same, each bin's counter on a 128-byte line of its own
// (scratch from the workspace), added into hist at the end.
void histogram_global_atomics_padded(Input in, std::uint32_t* hist, const Tuning& tuning, GpuContext& ctx);
// 02_shared_privatized.cu: a private histogram per block in shared memory, merged at the end.
void histogram_privatized(Input in, std::uint32_t* hist, const Tuning& tuning, GpuContext& ctx);
// 03_aggregated.cu: 02, plus runs of equal values counted before each atomic, and coarsening.
void histogram_aggregated(Input in, std::uint32_t* hist, const Tuning& tuning, GpuContext& ctx);
// 03_aggregated.cu, challenge 3e: 03's walk, with equal values found across the warp
// (__match_any_sync) instead of along a thread's run: one atomic per distinct value per warp.
void histogram_warp_aggregated(Input in, std::uint32_t* hist, const Tuning& tuning, GpuContext& ctx);

// 04_scan.cu: three scans of the 256 bins.
void scan_kogge_stone(const std::uint32_t* hist, std::uint32_t* cdf, GpuContext& ctx);
void scan_kogge_stone_double_buffer(const std::uint32_t* hist, std::uint32_t* cdf, GpuContext& ctx);
void scan_brent_kung(const std::uint32_t* hist, std::uint32_t* cdf, GpuContext& ctx);

// 05_equalize.cu: the LUT from the CDF (pixels = N), then the map.
void normalize(const std::uint32_t* cdf, std::uint8_t* lut, std::uint64_t pixels, GpuContext& ctx);
void equalize(Input in, Output out, const std::uint8_t* lut, const Tuning& tuning, GpuContext& ctx);

// ---- The expert tier (optional challenge, bonus points) -----------------------------------------
// 06_expert.cu: the whole equalization, histogram to map, any way you like, as close to the
// 3 B/px floor (read the image twice, write it once) as you can get. No pipeline: the grader times
// the whole call, and each stage you end with labkit::end_stage(ctx) (labkit/image_pool.hpp), as
// kit/pipeline.cpp does after the histogram, the scan, the normalize and the equalize.
void histogram_equalization_expert(Input in, Output out, GpuContext& ctx);

}  // namespace histogram_equalization
