// Timing of CPU code, written once for the runner's CPU variants and the grader's reference:
// a warm-up call (page faults, the OpenMP thread pool), then the run policy's timed calls.
#pragma once

#include <functional>
#include <vector>

#include "labkit/timing.hpp"
#include "protocol.hpp"

namespace grader {

inline PerfLine time_cpu_call(const std::function<void()>& call, int width, int height, int threads,
                              const labkit::RunPolicy& policy) {
    call();  // warm-up
    std::vector<double> ms;
    double total = 0;
    while (policy.more(static_cast<int>(ms.size()), total)) {
        labkit::CpuTimer timer;
        call();
        ms.push_back(timer.elapsed_ms());
        total += ms.back();
    }
    const auto s = labkit::summarize(ms);
    return {.params = {}, .width = width, .height = height, .threads = threads, .ms = s.median, .min_ms = s.min, .max_ms = s.max,
            .runs = s.runs, .e2e_ms = s.median, .stage_ms = {}};
}

}  // namespace grader
