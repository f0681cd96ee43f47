// Timing of CPU code, written once for the runner's CPU variants and the grader's reference:
// a warm-up call (page faults, the OpenMP thread pool), then the run policy's timed calls.
// `prepare(run)`, when given, runs before every call, untimed (run -1 is the warm-up): a fresh
// input and a re-poisoned output, so that no call can reuse the work of the one before.
// `finish(run)`, when given, runs after every timed call, untimed (handing its output over). The
// policy then counts the wall time of whole runs, preparation included, so that large images
// get fewer runs rather than minutes of preparation. Each call's CPU time (user + system, of
// every thread of the process) is measured beside its wall time: the grader compares the two
// with the threads the call was given.
#pragma once

#include <sys/resource.h>

#include <functional>
#include <vector>

#include "labkit/timing.hpp"
#include "protocol.hpp"

namespace grader {

// User + system CPU time of the whole process (every thread) so far, in ms.
inline double process_cpu_ms() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    constexpr double kMsPerS = 1e3, kMsPerUs = 1e-3;
    const auto ms = [&](const timeval& t) { return static_cast<double>(t.tv_sec) * kMsPerS + static_cast<double>(t.tv_usec) * kMsPerUs; };
    return ms(u.ru_utime) + ms(u.ru_stime);
}

inline PerfLine time_cpu_call(const std::function<void()>& call, int width, int height, int threads,
                              const labkit::RunPolicy& policy, const std::function<void(int)>& prepare = {},
                              const std::function<void(int)>& finish = {}) {
    if (prepare) prepare(-1);
    call();  // warm-up
    std::vector<double> ms, cpu;
    labkit::CpuTimer wall;
    double total = 0;
    while (policy.more(static_cast<int>(ms.size()), total)) {
        const int run = static_cast<int>(ms.size());
        if (prepare) prepare(run);
        const double cpu0 = process_cpu_ms();
        labkit::CpuTimer timer;
        call();
        ms.push_back(timer.elapsed_ms());
        cpu.push_back(process_cpu_ms() - cpu0);
        if (finish) finish(run);
        total = prepare ? wall.elapsed_ms() : total + ms.back();
    }
    const auto s = labkit::summarize(ms);
    return {.params = {}, .width = width, .height = height, .threads = threads, .ms = s.median, .min_ms = s.min, .max_ms = s.max,
            .runs = s.runs, .e2e_ms = s.median, .cpu_ms = labkit::summarize(cpu).median, .stage_ms = {}};
}

}  // namespace grader
