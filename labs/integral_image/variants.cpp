// The variant tables of Lab 1, in teaching order. The grader, the tests and the benchmarks all
// enumerate these tables; adding a configuration is adding a line here.
#include <array>

#include "integral_image.hpp"

namespace integral_image {
namespace {

using u8 = std::uint8_t;
using u32 = std::uint32_t;

#if LABKIT_HAVE_CUDA
constexpr Pipeline naive{scan_rows_naive<u8>, scan_rows_naive<u32>, transpose_naive, {}};
constexpr Pipeline kogge_stone(int section, int block_rows) {
    return {scan_rows_kogge_stone<u8>, scan_rows_kogge_stone<u32>, transpose_tiled, {section, block_rows}};
}
constexpr Pipeline brent_kung(int section, int block_rows) {
    return {scan_rows_brent_kung<u8>, scan_rows_brent_kung<u32>, transpose_tiled, {section, block_rows}};
}
constexpr Pipeline single_pass(int section, int block_rows) {
    return {scan_rows_single_pass<u8>, scan_rows_single_pass<u32>, transpose_tiled, {section, block_rows}};
}
#endif

constexpr Variant kVariants[] = {
    {"cpu-sequential", "the recurrence, one pixel at a time (the baseline)", Kind::cpu_sequential, {}},
    {"cpu-openmp", "rows in parallel, then column strips in parallel", Kind::cpu_openmp, {}},
#if LABKIT_HAVE_CUDA
    {"gpu-01-naive", "one thread scans a whole row; naive transposes", Kind::gpu_pipeline, naive},
    {"gpu-02-kogge-stone-s256-b8", "Kogge-Stone sections + block sums + add-back; tiled transposes", Kind::gpu_pipeline, kogge_stone(256, 8)},
    {"gpu-02-kogge-stone-s256-b16", "Kogge-Stone sections + block sums + add-back; tiled transposes", Kind::gpu_pipeline, kogge_stone(256, 16)},
    {"gpu-02-kogge-stone-s512-b8", "Kogge-Stone sections + block sums + add-back; tiled transposes", Kind::gpu_pipeline, kogge_stone(512, 8)},
    {"gpu-02-kogge-stone-s512-b16", "Kogge-Stone sections + block sums + add-back; tiled transposes", Kind::gpu_pipeline, kogge_stone(512, 16)},
    {"gpu-02-kogge-stone-s1024-b8", "Kogge-Stone sections + block sums + add-back; tiled transposes", Kind::gpu_pipeline, kogge_stone(1024, 8)},
    {"gpu-02-kogge-stone-s1024-b16", "Kogge-Stone sections + block sums + add-back; tiled transposes", Kind::gpu_pipeline, kogge_stone(1024, 16)},
    {"gpu-03-brent-kung-s256-b8", "work-efficient up/down-sweep sections, conflict-free padding", Kind::gpu_pipeline, brent_kung(256, 8)},
    {"gpu-03-brent-kung-s256-b16", "work-efficient up/down-sweep sections, conflict-free padding", Kind::gpu_pipeline, brent_kung(256, 16)},
    {"gpu-03-brent-kung-s512-b8", "work-efficient up/down-sweep sections, conflict-free padding", Kind::gpu_pipeline, brent_kung(512, 8)},
    {"gpu-03-brent-kung-s512-b16", "work-efficient up/down-sweep sections, conflict-free padding", Kind::gpu_pipeline, brent_kung(512, 16)},
    {"gpu-03-brent-kung-s1024-b8", "work-efficient up/down-sweep sections, conflict-free padding", Kind::gpu_pipeline, brent_kung(1024, 8)},
    {"gpu-03-brent-kung-s1024-b16", "work-efficient up/down-sweep sections, conflict-free padding", Kind::gpu_pipeline, brent_kung(1024, 16)},
    {"gpu-04-single-pass-s256-b8", "one-kernel chained row scan, dynamic block ids", Kind::gpu_pipeline, single_pass(256, 8)},
    {"gpu-04-single-pass-s256-b16", "one-kernel chained row scan, dynamic block ids", Kind::gpu_pipeline, single_pass(256, 16)},
    {"gpu-04-single-pass-s512-b8", "one-kernel chained row scan, dynamic block ids", Kind::gpu_pipeline, single_pass(512, 8)},
    {"gpu-04-single-pass-s512-b16", "one-kernel chained row scan, dynamic block ids", Kind::gpu_pipeline, single_pass(512, 16)},
    {"gpu-04-single-pass-s1024-b8", "one-kernel chained row scan, dynamic block ids", Kind::gpu_pipeline, single_pass(1024, 8)},
    {"gpu-04-single-pass-s1024-b16", "one-kernel chained row scan, dynamic block ids", Kind::gpu_pipeline, single_pass(1024, 16)},
#endif
};

#if LABKIT_HAVE_CUDA
constexpr TransposeVariant kTransposeVariants[] = {
    {"transpose-naive", "one thread per element; reads coalesced, writes strided", transpose_naive, {}},
    {"transpose-tiled-b8", "32x33 shared tile, diagonal order, 4 elements per thread", transpose_tiled, {kMaxSectionSize, 8}},
    {"transpose-tiled-b16", "32x33 shared tile, diagonal order, 2 elements per thread", transpose_tiled, {kMaxSectionSize, 16}},
};
#else
constexpr std::array<TransposeVariant, 0> kTransposeVariants{};
#endif

// The files a student edits (and a submission hands in), in the order the handout takes them.
constexpr std::string_view kStudentFiles[] = {
    "cpu_openmp.cpp", "01_naive.cu", "02_transpose_tiled.cu", "02_kogge_stone.cu", "03_brent_kung.cu", "04_single_pass.cu",
};

}  // namespace

std::span<const Variant> variants() { return kVariants; }
std::span<const TransposeVariant> transpose_variants() { return kTransposeVariants; }
std::span<const std::string_view> student_files() { return kStudentFiles; }

}  // namespace integral_image
