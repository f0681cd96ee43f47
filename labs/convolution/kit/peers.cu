// Lab 3's peers: the filter a CUDA programmer calls from NPP instead of writing kernels, graded
// and timed by the same harness as the kit's variants (the same cases and tolerance, the same
// read-sweep L2 flush, CUDA events and median), so that the two are compared fairly.
//
// What they are:
// - peer-npp: nppiFilterBorder_32f_C1R, the k x k weights (any filter);
// - peer-npp-separable: nppiFilterRowBorder_32f_C1R then nppiFilterColumnBorder_32f_C1R, the 1D
//   factors (separable filters: the contract says where it applies), through an image of the pool.
// NPP's conventions, and what is done about each:
// - NPP convolves (its kernels are "stored in reverse order"), so it is given the reversed weights
//   and computes the lab's correlation; the anchor (r, r), r = k / 2, centres the window.
// - NPP 13's float filters with border control take only NPP_BORDER_REPLICATE (the others return
//   NPP_NOT_SUPPORTED_MODE_ERROR; so says its header, and a probe on an H100 agreed). The replicate
//   border is therefore one NPP call. The zero and mirror borders take a padded copy first, by r on
//   every side: NPP's nppiCopyConstBorder for zero, a small kernel here for mirror (NPP has no
//   mirror copy), then the same filters on its interior, whose windows then never leave the copy.
//   Not NPP's borderless nppiFilter: at k = 3 and 5 (NPP 13.0, H100) it got the outermost r rows
//   and columns of the ROI wrong, and the interior right (the lab's check, 67x45 cases). The copy
//   is a stage of its own (labkit::end_stage), so the report shows it apart from the filter.
// - NPP does not clamp: where the filter can leave 0..255 (a negative weight, or weights summing
//   past 1), nppiThreshold_LTValGTVal clamps in place, as a user of NPP would; a Gaussian needs none.
// The weights go to the device in the setup, outside the kernel-only timing (as the kit's do).
// Cost: the filter reads 4 B/px (and its halo) and writes 4 B/px; the padded copy adds 8 B/px,
// the separable pair 8 B/px for its intermediate image, the clamp 8 B/px.
// Limits: NPP's sizes and steps are int (images below 2^31 bytes a row).
// Needs: NPP (the build defines LABKIT_HAVE_NPP where the CUDA toolkit has it; else no rows).
// Ref: NPP, Image Filtering Functions (https://docs.nvidia.com/cuda/npp/).
#include <cstdint>
#include <span>
#include <vector>

#include "tables.hpp"

#if LABKIT_HAVE_NPP
#include <algorithm>

#include "labkit/cuda_check.hpp"
#include "labkit/image_pool.hpp"
#include "labkit/launch.hpp"
#include "labkit/npp.hpp"
#endif

namespace convolution {

#if LABKIT_HAVE_NPP
namespace {

enum class Scratch { weights, row, column };
enum class Intermediate { padded, rows };

constexpr int kPadBlockX = 32, kPadBlockY = 8;

// padded(x, y) = the input at (x - r, y - r) through the mirror border (the lab's border_index).
__global__ void __launch_bounds__(kPadBlockX * kPadBlockY) mirror_pad_kernel(Input in, Output padded, int r) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= padded.width) return;
    const int sx = border_index(x - r, in.width, Border::mirror);
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < padded.height; y += gridDim.y * blockDim.y)
        padded(x, y) = in(sx, border_index(y - r, in.height, Border::mirror));
}

// NPP's border-control filters take the ROI's first pixel, the whole source's size, and where
// that pixel lies in it (the origin is pSrc - offset: passing the origin itself reads before it).
int step(auto view) { return static_cast<int>(view.pitch * sizeof(float)); }
NppiSize size_of(auto view) { return {view.width, view.height}; }

// The weights reversed (NPP convolves), in the workspace's slot.
void upload_reversed(const std::vector<float>& weights, Scratch slot, GpuContext& ctx) {
    const std::vector<float> reversed(weights.rbegin(), weights.rend());
    float* device = ctx.workspace->get<float>(slot, reversed.size());
    CUDA_CHECK(cudaMemcpyAsync(device, reversed.data(), reversed.size() * sizeof(float), cudaMemcpyHostToDevice, ctx.stream));
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));  // `reversed` is freed on return
}

// A filter whose output can leave kMinValue..kMaxValue on a 0..255 input needs NPP's clamp.
bool needs_clamp(const Filter& f) {
    double sum = 0;
    for (float w : f.weights) {
        if (w < 0) return true;
        sum += w;
    }
    constexpr double kRoundingSlack = 1e-6;  // a normalized filter's float32 weights may sum a hair past 1
    return sum > 1 + kRoundingSlack;
}

// The input copied into an image of the pool, r pixels wider on every side, with the zero or the
// mirror border: what the border filters then read on its interior, never past its edge.
Input padded_copy(Input in, int r, Border border, GpuContext& ctx, const NppStreamContext& npp) {
    const auto& image = ctx.images->get<float>(Intermediate::padded, in.width + 2 * r, in.height + 2 * r,
                                               "the padded copy", ctx.stream);
    const Output padded = image.view();
    if (border == Border::zero) {
        NPP_CHECK(nppiCopyConstBorder_32f_C1R_Ctx(in.data, step(in), size_of(in), padded.data, step(padded),
                                                  size_of(padded), r, r, 0.0f, npp));
    } else {
        const dim3 block(kPadBlockX, kPadBlockY);
        const dim3 grid(labkit::ceil_div(padded.width, kPadBlockX),
                        std::min(labkit::ceil_div(padded.height, kPadBlockY), labkit::kMaxGridY));
        mirror_pad_kernel<<<grid, block, 0, ctx.stream>>>(in, padded, r);
        CUDA_CHECK_LAUNCH();
    }
    labkit::end_stage(ctx);
    return image.cview();
}

void clamp_if_needed(Output out, const Filter& f, const NppStreamContext& npp, GpuContext& ctx) {
    if (!needs_clamp(f)) return;
    NPP_CHECK(nppiThreshold_LTValGTVal_32f_C1IR_Ctx(out.data, step(out), size_of(out), kMinValue, kMinValue,
                                                    kMaxValue, kMaxValue, npp));
    labkit::end_stage(ctx);
}

void npp_filter(Input in, Output out, const Params& p, GpuContext& ctx) {
    const NppStreamContext npp = labkit::npp_context(ctx.stream);
    const int k = p.filter.size, r = k / 2;
    const float* weights = ctx.workspace->get<float>(Scratch::weights, p.filter.weights.size());
    if (p.border == Border::replicate) {
        NPP_CHECK(nppiFilterBorder_32f_C1R_Ctx(in.data, step(in), size_of(in), {0, 0}, out.data, step(out), size_of(out),
                                               weights, {k, k}, {r, r}, NPP_BORDER_REPLICATE, npp));
    } else {
        const Input padded = padded_copy(in, r, p.border, ctx, npp);
        NPP_CHECK(nppiFilterBorder_32f_C1R_Ctx(&padded(r, r), step(padded), size_of(padded), {r, r}, out.data, step(out),
                                               size_of(out), weights, {k, k}, {r, r}, NPP_BORDER_REPLICATE, npp));
    }
    labkit::end_stage(ctx);
    clamp_if_needed(out, p.filter, npp, ctx);
}

void npp_separable(Input in, Output out, const Params& p, GpuContext& ctx) {
    const NppStreamContext npp = labkit::npp_context(ctx.stream);
    const int k = p.filter.size, r = k / 2;
    const float* row = ctx.workspace->get<float>(Scratch::row, k);
    const float* column = ctx.workspace->get<float>(Scratch::column, k);
    if (p.border == Border::replicate) {
        const auto& rows = ctx.images->get<float>(Intermediate::rows, in.width, in.height, "the row pass", ctx.stream);
        const Output tmp = rows.view();
        NPP_CHECK(nppiFilterRowBorder_32f_C1R_Ctx(in.data, step(in), size_of(in), {0, 0}, tmp.data, step(tmp),
                                                  size_of(tmp), row, k, r, NPP_BORDER_REPLICATE, npp));
        labkit::end_stage(ctx);
        NPP_CHECK(nppiFilterColumnBorder_32f_C1R_Ctx(tmp.data, step(tmp), size_of(tmp), {0, 0}, out.data, step(out),
                                                     size_of(out), column, k, r, NPP_BORDER_REPLICATE, npp));
    } else {
        // Every padded row filtered along x ((H + 2r) x W), then the columns of that (H x W).
        const Input padded = padded_copy(in, r, p.border, ctx, npp);
        const auto& rows = ctx.images->get<float>(Intermediate::rows, in.width, padded.height, "the row pass", ctx.stream);
        const Output tmp = rows.view();
        NPP_CHECK(nppiFilterRowBorder_32f_C1R_Ctx(&padded(r, 0), step(padded), size_of(padded), {r, 0}, tmp.data, step(tmp),
                                                  size_of(tmp), row, k, r, NPP_BORDER_REPLICATE, npp));
        labkit::end_stage(ctx);
        NPP_CHECK(nppiFilterColumnBorder_32f_C1R_Ctx(&tmp(0, r), step(tmp), size_of(tmp), {0, r}, out.data, step(out),
                                                     size_of(out), column, k, r, NPP_BORDER_REPLICATE, npp));
    }
    labkit::end_stage(ctx);
    clamp_if_needed(out, p.filter, npp, ctx);
}

const std::vector<protocol::Variant<Convolution>>& table() {
    static const std::vector<protocol::Variant<Convolution>> rows = {
        {kNppPeer, "NPP: nppiFilterBorder_32f_C1R (replicate border; others: on a padded copy); clamp if needed", {},
         npp_filter, [](const Params& p, GpuContext& ctx) { upload_reversed(p.filter.weights, Scratch::weights, ctx); }},
        {kNppSeparablePeer, "NPP: nppiFilterRowBorder_32f_C1R then nppiFilterColumnBorder_32f_C1R on the factors, as peer-npp", {},
         npp_separable, [](const Params& p, GpuContext& ctx) {
             upload_reversed(p.filter.row, Scratch::row, ctx);
             upload_reversed(p.filter.column, Scratch::column, ctx);
         }},
    };
    return rows;
}

}  // namespace

std::span<const protocol::Variant<Convolution>> peer_variants() { return table(); }
#else
std::span<const protocol::Variant<Convolution>> peer_variants() { return {}; }  // this toolkit has no NPP
#endif

}  // namespace convolution
