// Launch arithmetic every kernel file needs, written once: grid sizes, the warp width and
// CUDA's grid limits. Host and device code both use them; this header needs no CUDA headers.
#pragma once

#include "labkit/gpu_limits.hpp"
#include "labkit/image.hpp"  // LABKIT_HD

namespace labkit {

// Blocks needed to cover n items with `per_block` items each: the last block may be ragged. The
// count has n's type (int, or long long for a count of pixels).
template <class Count, class PerBlock>
LABKIT_HD constexpr Count ceil_div(Count n, PerBlock per_block) {
    return (n + per_block - 1) / per_block;
}

// A grid-stride walk over the pixels of a width-wide image in row-major order (pixel i, then
// i + stride, ...), as (x, y): one division when it starts instead of a 64-bit division and a
// remainder per pixel, which would cost more than the pixel's load. The walk has ended when
// y reaches the height.
//   for (labkit::PixelStride p(first, stride, in.width); p.y < in.height; p.next()) use(in(p.x, p.y));
struct PixelStride {
    int x, y;
    LABKIT_HD PixelStride(long long first, long long stride, int width)
        : x(static_cast<int>(first % width)), y(static_cast<int>(first / width)),
          step_x(static_cast<int>(stride % width)), step_y(static_cast<int>(stride / width)), width(width) {}
    LABKIT_HD void next() {
        x += step_x;
        y += step_y;
        if (x >= width) {
            x -= width;
            ++y;
        }
    }

private:
    int step_x, step_y, width;
};

inline constexpr int kWarpSize = 32;  // lanes in a warp (warpSize is not a compile-time constant)
inline constexpr unsigned kFullMask = 0xffffffffu;  // every lane of the warp takes part in a shuffle
inline constexpr int kMaxGridY = kMaxGridYZ;  // CUDA's limit on gridDim.y (and z): taller images loop over rows

static_assert(ceil_div(1, 32) == 1 && ceil_div(32, 32) == 1 && ceil_div(33, 32) == 2, "rounds up");

}  // namespace labkit
