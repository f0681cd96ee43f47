// The variant tables of Lab 1. Adding a configuration is adding a line here.
#include "tables.hpp"

#include <vector>

#include "pipeline.hpp"

namespace integral_image {
namespace {

using IiVariant = protocol::Variant<IntegralImage>;
using TrVariant = protocol::Variant<Transpose>;
using Ii64Variant = protocol::Variant<IntegralImage64>;
using IiExVariant = protocol::Variant<IntegralImageExclusive>;

IiVariant::CpuFn openmp() {
    return [](View<const u8> in, View<u32> out, const protocol::NoParams&, int threads) { cpu_openmp(in, out, threads); };
}
IiVariant::CpuFn openmp_expert() {
    return [](View<const u8> in, View<u32> out, const protocol::NoParams&, int threads) {
        cpu_openmp_expert(in, out, threads);
    };
}

#if LABKIT_HAVE_CUDA
IiVariant::GpuFn pipeline(Pipeline p) {
    return [p](View<const u8> in, View<u32> out, const protocol::NoParams&, GpuContext& ctx) { run_pipeline(p, in, out, ctx); };
}
IiVariant::GpuFn naive() { return pipeline({scan_rows_naive<u8>, scan_rows_naive<u32>, transpose_naive, {}}); }
IiVariant::GpuFn kogge_stone(int section, int block_rows) {
    return pipeline({scan_rows_kogge_stone<u8>, scan_rows_kogge_stone<u32>, transpose_tiled, {section, block_rows}});
}
IiVariant::GpuFn brent_kung(int section, int block_rows) {
    return pipeline({scan_rows_brent_kung<u8>, scan_rows_brent_kung<u32>, transpose_tiled, {section, block_rows}});
}
IiVariant::GpuFn coarsened(int section, int block_rows) {
    return pipeline({scan_rows_coarsened<u8>, scan_rows_coarsened<u32>, transpose_tiled, {section, block_rows}});
}
IiVariant::GpuFn single_pass(int section, int block_rows) {
    return pipeline({scan_rows_single_pass<u8>, scan_rows_single_pass<u32>, transpose_tiled, {section, block_rows}});
}
IiVariant::GpuFn expert() {
    return [](View<const u8> in, View<u32> out, const protocol::NoParams&, GpuContext& ctx) {
        integral_image_expert(in, out, ctx);
    };
}
IiVariant::GpuFn expert_single_pass() {
    return [](View<const u8> in, View<u32> out, const protocol::NoParams&, GpuContext& ctx) {
        integral_image_expert_single_pass(in, out, ctx);
    };
}
// The expert tier's other layouts: the same call shape, another contract.
template <class Variant, class Out>
typename Variant::GpuFn expert_layout(void (*fn)(Input, View<Out>, GpuContext&)) {
    return [fn](View<const u8> in, View<Out> out, const protocol::NoParams&, GpuContext& ctx) { fn(in, out, ctx); };
}
TrVariant::GpuFn transpose(TransposeFn fn, Tuning tuning) {
    return [fn, tuning](View<const u32> in, View<u32> out, const protocol::NoParams&, GpuContext& ctx) {
        fn(in, out, tuning, ctx);
    };
}
#endif

constexpr const char* kKoggeStone = "Kogge-Stone sections + block sums + add-back; tiled transposes";
constexpr const char* kBrentKung = "work-efficient up/down-sweep sections, conflict-free padding";
constexpr const char* kCoarsened = "experiment: 4 items a thread, warp-shuffle sections; block sums + add-back; tiled transposes";
constexpr const char* kSinglePass = "one-kernel chained row scan, dynamic block ids";

const std::vector<IiVariant>& table() {
    static const std::vector<IiVariant> rows = {
        {"cpu-openmp", "rows in parallel, then column strips in parallel", openmp(), {}},
        {"cpu-openmp-expert", "challenge: bands of rows, the table written once and never read back", openmp_expert(), {}},
#if LABKIT_HAVE_CUDA
        {"gpu-01-naive", "one thread scans a whole row; naive transposes", {}, naive()},
        {"gpu-02-kogge-stone-s256-b8", kKoggeStone, {}, kogge_stone(256, 8)},
        {"gpu-02-kogge-stone-s256-b16", kKoggeStone, {}, kogge_stone(256, 16)},
        {"gpu-02-kogge-stone-s512-b8", kKoggeStone, {}, kogge_stone(512, 8)},
        {"gpu-02-kogge-stone-s512-b16", kKoggeStone, {}, kogge_stone(512, 16)},
        {"gpu-02-kogge-stone-s1024-b8", kKoggeStone, {}, kogge_stone(1024, 8)},
        {"gpu-02-kogge-stone-s1024-b16", kKoggeStone, {}, kogge_stone(1024, 16)},
        {"gpu-03-brent-kung-s256-b8", kBrentKung, {}, brent_kung(256, 8)},
        {"gpu-03-brent-kung-s256-b16", kBrentKung, {}, brent_kung(256, 16)},
        {"gpu-03-brent-kung-s512-b8", kBrentKung, {}, brent_kung(512, 8)},
        {"gpu-03-brent-kung-s512-b16", kBrentKung, {}, brent_kung(512, 16)},
        {"gpu-03-brent-kung-s1024-b8", kBrentKung, {}, brent_kung(1024, 8)},
        {"gpu-03-brent-kung-s1024-b16", kBrentKung, {}, brent_kung(1024, 16)},
        {"gpu-03b-coarsened-s256-b8", kCoarsened, {}, coarsened(256, 8)},
        {"gpu-03b-coarsened-s256-b16", kCoarsened, {}, coarsened(256, 16)},
        {"gpu-03b-coarsened-s512-b8", kCoarsened, {}, coarsened(512, 8)},
        {"gpu-03b-coarsened-s512-b16", kCoarsened, {}, coarsened(512, 16)},
        {"gpu-03b-coarsened-s1024-b8", kCoarsened, {}, coarsened(1024, 8)},
        {"gpu-03b-coarsened-s1024-b16", kCoarsened, {}, coarsened(1024, 16)},
        {"gpu-04-single-pass-s256-b8", kSinglePass, {}, single_pass(256, 8)},
        {"gpu-04-single-pass-s256-b16", kSinglePass, {}, single_pass(256, 16)},
        {"gpu-04-single-pass-s512-b8", kSinglePass, {}, single_pass(512, 8)},
        {"gpu-04-single-pass-s512-b16", kSinglePass, {}, single_pass(512, 16)},
        {"gpu-04-single-pass-s1024-b8", kSinglePass, {}, single_pass(1024, 8)},
        {"gpu-04-single-pass-s1024-b16", kSinglePass, {}, single_pass(1024, 16)},
        {"gpu-05-expert", "challenge: the whole table near the 5 B/px floor, no transposes", {}, expert()},
        {"gpu-05-expert-single-pass", "stretch: one pass, the image read once, look-back between bands", {},
         expert_single_pass()},
#endif
    };
    return rows;
}

const std::vector<TrVariant>& transpose_table() {
    static const std::vector<TrVariant> rows = {
#if LABKIT_HAVE_CUDA
        {"transpose-naive", "one thread per element; reads coalesced, writes strided", {}, transpose(transpose_naive, {})},
        {"transpose-tiled-b8", "32x33 shared tile, diagonal order, 4 elements per thread", {},
         transpose(transpose_tiled, {kMaxSectionSize, 8})},
        {"transpose-tiled-b16", "32x33 shared tile, diagonal order, 2 elements per thread", {},
         transpose(transpose_tiled, {kMaxSectionSize, 16})},
#endif
    };
    return rows;
}

const std::vector<Ii64Variant>& table_64() {
    static const std::vector<Ii64Variant> rows = {
#if LABKIT_HAVE_CUDA
        {"gpu-05-expert-64", "challenge: the uint64 table, exact past 2^32", {},
         expert_layout<Ii64Variant>(integral_image_expert_64)},
#endif
    };
    return rows;
}

const std::vector<IiExVariant>& exclusive_table() {
    static const std::vector<IiExVariant> rows = {
#if LABKIT_HAVE_CUDA
        {"gpu-05-expert-exclusive", "challenge: OpenCV's and NPP's (W+1)x(H+1) layout, zeros first", {},
         expert_layout<IiExVariant>(integral_image_expert_exclusive)},
#endif
    };
    return rows;
}

}  // namespace

std::span<const IiVariant> variants() { return table(); }
std::span<const TrVariant> transpose_variants() { return transpose_table(); }
std::span<const Ii64Variant> variants_64() { return table_64(); }
std::span<const IiExVariant> exclusive_variants() { return exclusive_table(); }

}  // namespace integral_image
