// Timing of CPU code, written once for the runner's CPU variants and the grader's reference:
// a warm-up call (page faults, the OpenMP thread pool), then the run policy's timed calls.
// `prepare(run)`, when given, runs before every call, untimed (run -1 is the warm-up): a fresh
// input and a re-poisoned output, so that no call can reuse the work of the one before. The
// policy then counts the wall time of whole runs, preparation included, so that large images
// get fewer runs rather than minutes of preparation.
#pragma once

#include <functional>
#include <vector>

#include "labkit/timing.hpp"
#include "protocol.hpp"

namespace grader {

inline PerfLine time_cpu_call(const std::function<void()>& call, int width, int height, int threads,
                              const labkit::RunPolicy& policy, const std::function<void(int)>& prepare = {}) {
    if (prepare) prepare(-1);
    call();  // warm-up
    std::vector<double> ms;
    labkit::CpuTimer wall;
    double total = 0;
    while (policy.more(static_cast<int>(ms.size()), total)) {
        if (prepare) prepare(static_cast<int>(ms.size()));
        labkit::CpuTimer timer;
        call();
        ms.push_back(timer.elapsed_ms());
        total = prepare ? wall.elapsed_ms() : total + ms.back();
    }
    const auto s = labkit::summarize(ms);
    return {.params = {}, .width = width, .height = height, .threads = threads, .ms = s.median, .min_ms = s.min, .max_ms = s.max,
            .runs = s.runs, .e2e_ms = s.median, .stage_ms = {}};
}

}  // namespace grader
