// Launch arithmetic every kernel file needs, written once: grid sizes, the warp width and
// CUDA's grid limits. Host and device code both use them; this header needs no CUDA headers.
#pragma once

#include "labkit/image.hpp"  // LABKIT_HD

namespace labkit {

// Blocks needed to cover n items with `per_block` items each: the last block may be ragged. The
// count has n's type (int, or long long for a count of pixels).
template <class Count, class PerBlock>
LABKIT_HD constexpr Count ceil_div(Count n, PerBlock per_block) {
    return (n + per_block - 1) / per_block;
}

inline constexpr int kWarpSize = 32;  // lanes in a warp (warpSize is not a compile-time constant)
inline constexpr unsigned kFullMask = 0xffffffffu;  // every lane of the warp takes part in a shuffle
inline constexpr int kMaxGridY = 65535;  // CUDA's limit on gridDim.y (and z): taller images loop over rows

static_assert(ceil_div(1, 32) == 1 && ceil_div(32, 32) == 1 && ceil_div(33, 32) == 2, "rounds up");

}  // namespace labkit
