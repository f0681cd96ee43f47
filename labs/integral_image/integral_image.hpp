// Lab 1 — integral image (summed-area table): the one interface every file of the lab shares.
//
// Contract: in is an 8-bit gray W x H image; out is the inclusive summed-area table, uint32,
// same size:  out(x, y) = sum of in(x', y') over x' <= x, y' <= y,  modulo 2^32.
// (Wrap-around is part of the contract: rectangle sums computed from wrapped corners are still
// exact whenever the true rectangle sum fits in 32 bits; see the handout.)
//
// The GPU pipeline is  scan rows -> transpose -> scan rows -> transpose back.
// Students write the building blocks below (in the numbered files of labs/integral_image/);
// the kit (kit/) composes them into the variants of kit/tables.cpp, and the grader checks them
// against its own reference and times every pass.
#pragma once

#include <cstdint>

#include "labkit/gpu_context.hpp"
#include "labkit/image.hpp"
#include "labkit/not_for_students.hpp"

namespace integral_image {

using labkit::GpuContext;
using labkit::View;

using Input = View<const std::uint8_t>;
using Output = View<std::uint32_t>;
using Output64 = View<std::uint64_t>;  // the 64-bit table of the expert tier

// ---- CPU ---------------------------------------------------------------------------------------
// The baseline, cpu-sequential, is the grader's reference (kit/reference.cpp): it is not linked
// with your code, and a call to it stops the build with this message.
LABKIT_NOT_FOR_STUDENTS("cpu_sequential is the grader's reference and is not linked with student code: write your own loops")
void cpu_sequential(Input in, Output out);
// Student: rows in parallel, then columns cache-friendly (cpu_openmp.cpp). threads >= 1.
void cpu_openmp(Input in, Output out, int threads);
// The expert tier (optional challenge, bonus points): the same contract, as fast as memory allows
// (cpu_openmp_expert.cpp). threads >= 1.
void cpu_openmp_expert(Input in, Output out, int threads);

// ---- GPU building blocks ------------------------------------------------------------------------
// Compile-time limits of the tunables, shared by kernels and the variant table.
inline constexpr int kMaxSectionSize = 1024;  // one element per thread, and 1024 threads per block at most
inline constexpr int kTileDim = 32;           // one warp wide: a tile row is one coalesced 128-byte access

struct Tuning {
    int section_size = 1024;  // elements one block scans: 256, 512 or 1024
    int block_rows = 8;       // transpose: rows of a tile each thread block row covers (8 or 16)
};

// Scratch buffers a scan may ask the workspace for (ctx.workspace->get<T>(Scratch::..., n)).
enum class Scratch {
    block_sums,
    chain_flags,
    block_counter,
    // 05_expert_sat.cu: the small arrays between its kernels
    expert_row_sums,
    expert_column_sums,
    expert_column_carries,
    expert_tile_sums,
    expert_corners,
    expert_row_left,
    // 05_expert_single_pass.cu: the ticket and the (band, chunk) flags, one array; the bands' aggregates
    single_pass_flags,
    single_pass_aggregates,
};

// A row scan: out(x, y) = sum of in(x', y) for x' <= x. Used on uint8 input (first pass) and on
// uint32 input (second pass, after the transpose); each file explicitly instantiates both.
template <class In>
using RowScanFn = void (*)(View<const In> in, Output out, const Tuning& tuning, GpuContext& ctx);
// out(y, x) = in(x, y); out is in.height wide and in.width tall.
using TransposeFn = void (*)(View<const std::uint32_t> in, Output out, const Tuning& tuning, GpuContext& ctx);

// 01_naive.cu
template <class In>
void scan_rows_naive(View<const In> in, Output out, const Tuning& tuning, GpuContext& ctx);
void transpose_naive(View<const std::uint32_t> in, Output out, const Tuning& tuning, GpuContext& ctx);
// 02_kogge_stone.cu (block-sum helpers are shared with 03_brent_kung.cu)
template <class In>
void scan_rows_kogge_stone(View<const In> in, Output out, const Tuning& tuning, GpuContext& ctx);
// sums(b, y) holds the total of section b of row y; afterwards it holds the exclusive scan of
// those totals along each row. sums is a (sections x height) dense array.
void scan_block_sums(View<std::uint32_t> sums, GpuContext& ctx);
// out(x, y) += sums(x / section_size, y) for every section after the first.
void add_block_sums(View<const std::uint32_t> sums, Output out, int section_size, GpuContext& ctx);
// 02_transpose_tiled.cu
void transpose_tiled(View<const std::uint32_t> in, Output out, const Tuning& tuning, GpuContext& ctx);
// 03_brent_kung.cu
template <class In>
void scan_rows_brent_kung(View<const In> in, Output out, const Tuning& tuning, GpuContext& ctx);
// 03b_coarsened.cu (an experiment, bonus points): 03's hierarchy with another section scan, four
// elements per thread in registers and warp shuffles; reuses the block-sum helpers of 02.
template <class In>
void scan_rows_coarsened(View<const In> in, Output out, const Tuning& tuning, GpuContext& ctx);
// 04_single_pass.cu
template <class In>
void scan_rows_single_pass(View<const In> in, Output out, const Tuning& tuning, GpuContext& ctx);

// ---- The expert tier (optional challenge, bonus points) -----------------------------------------
// 05_expert_sat.cu: the whole table, any way you like, as close to the 5 B/px floor (read the
// image once, write the table once) as you can get. No pipeline, no transposes: the grader times
// the whole call.
void integral_image_expert(Input in, Output out, GpuContext& ctx);
// Two other layouts users of integral images need (same file, same challenge):
// the 64-bit table, exact (no wrap), for images whose rectangle sums pass 2^32;
void integral_image_expert_64(Input in, Output64 out, GpuContext& ctx);
// the exclusive, zero-padded layout of OpenCV and NPP: out is (W + 1) x (H + 1), out(0, y) =
// out(x, 0) = 0 and out(x + 1, y + 1) = the inclusive sum at (x, y), modulo 2^32.
void integral_image_expert_exclusive(Input in, Output out, GpuContext& ctx);
// 05_expert_single_pass.cu (the stretch goal): the same table as integral_image_expert in a single
// pass that reads the image once, with decoupled look-back between bands of rows.
void integral_image_expert_single_pass(Input in, Output out, GpuContext& ctx);

}  // namespace integral_image
