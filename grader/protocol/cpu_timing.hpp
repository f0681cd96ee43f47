// Timing of CPU code, written once for the runner's CPU variants and the grader's reference:
// a warm-up call (page faults, the OpenMP thread pool), then the run policy's timed calls.
// `prepare(run)`, when given, runs before every call, untimed (run -1 is the warm-up): a fresh
// input and a re-poisoned output, so that no call can reuse the work of the one before.
// `finish(run)`, when given, runs after every timed call, untimed (handing its output over). The
// policy then counts the wall time of whole runs, preparation included, so that large images
// get fewer runs rather than minutes of preparation. The CPU time (user + system, of every
// thread of the process: cpu_clock.hpp) of the timed calls is measured beside their wall time,
// and summed over them: the grader compares the two with the threads the calls were given. So
// is the time the threads ran or waited for a core (ThreadDemand): on a loaded machine a team
// larger than it was given gets little CPU time, but its threads still wait.
#pragma once

#include <functional>
#include <vector>

#include "cpu_clock.hpp"
#include "labkit/timing.hpp"
#include "protocol.hpp"

namespace protocol {

inline PerfLine time_cpu_call(const std::function<void()>& call, int width, int height, int threads,
                              const labkit::RunPolicy& policy, const std::function<void(int)>& prepare = {},
                              const std::function<void(int)>& finish = {}) {
    if (prepare) prepare(-1);
    call();  // warm-up
    std::vector<double> ms;
    labkit::CpuTimer wall;
    double total = 0, cpu_total = 0, call_total = 0, demand_total = 0;
    while (policy.more(static_cast<int>(ms.size()), total, labkit::summarize(ms).noise)) {
        const int run = static_cast<int>(ms.size());
        if (prepare) prepare(run);
        const ThreadDemand demand;
        const double cpu0 = ProcessCpuClock::now_ms();
        labkit::CpuTimer timer;
        call();
        ms.push_back(timer.elapsed_ms());
        cpu_total += ProcessCpuClock::now_ms() - cpu0;
        demand_total += demand.elapsed_ms(ms.back());
        call_total += ms.back();
        if (finish) finish(run);
        total = prepare ? wall.elapsed_ms() : total + ms.back();
    }
    const double wanting = call_total > 0 ? demand_total / call_total : 0;  // threads running or waiting, on average
    const auto s = labkit::summarize(ms);
    const double busy = call_total > 0 ? cpu_total / call_total : 0;  // threads kept busy, on average
    return {.params = {}, .width = width, .height = height, .threads = threads, .ms = s.median, .min_ms = s.min, .max_ms = s.max,
            .runs = s.runs, .e2e_ms = s.median, .cpu_ms = busy * s.median, .noise = s.noise,
            .demand_ms = wanting * s.median, .stage_ms = {}};
}

}  // namespace protocol
