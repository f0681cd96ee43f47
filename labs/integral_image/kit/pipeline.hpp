// The lab's pipeline composition: how the student's building blocks make an integral image,
//   scan rows -> transpose -> scan rows -> transpose back,
// with the intermediate images taken from the harness's pool (poisoned and guard-checked like
// the output) and the end of each pass marked for the per-pass timings. Runner side only.
#pragma once

#include "integral_image.hpp"

namespace integral_image {

struct Pipeline {
    RowScanFn<std::uint8_t> scan_first;   // pass 1: uint8 rows -> uint32 row sums
    RowScanFn<std::uint32_t> scan_second;  // pass 3: uint32 rows of the transposed image
    TransposeFn transpose;                 // passes 2 and 4
    Tuning tuning;
};

#if LABKIT_HAVE_CUDA
void run_pipeline(const Pipeline& p, View<const std::uint8_t> in, Output out, GpuContext& ctx);
#endif

}  // namespace integral_image
