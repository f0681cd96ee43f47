// The lab's pipeline composition: histogram -> scan -> normalize -> equalize, with the 256-bin
// arrays taken from the workspace and the end of each stage marked for the per-stage timings.
// Runner side only.
#pragma once

#include "histogram_equalization.hpp"

namespace histogram_equalization {

struct Pipeline {
    HistogramFn histogram;
    ScanFn scan;
    Tuning tuning;
};

#if LABKIT_HAVE_CUDA
void run_pipeline(const Pipeline& p, Input in, Output out, GpuContext& ctx);
#endif

}  // namespace histogram_equalization
