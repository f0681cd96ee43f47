// Timing: CUDA events for device work, a steady clock for host work, an L2 flush between runs,
// and the statistics the tables report.
#pragma once

#include <chrono>
#include <vector>

namespace labkit {

struct Stats {
    double median = 0, min = 0, max = 0;
    double spread = 0;  // (max - min) / median: how noisy the runs were
    int runs = 0;
};
Stats summarize(std::vector<double> samples);

class CpuTimer {
public:
    void start() { t0_ = std::chrono::steady_clock::now(); }
    double elapsed_ms() const {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    }

private:
    std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// How many timed runs to take: a fixed count (--runs N), or adaptive: at least kMinRuns, then
// more until kTargetMs of measured time or kMaxRuns, whichever comes first.
struct RunPolicy {
    static constexpr int kMinRuns = 5;
    static constexpr int kMaxRuns = 50;
    static constexpr double kTargetMs = 400.0;  // enough samples for a stable median, short per cell
    int fixed_runs = 0;                         // 0 = adaptive

    bool more(int done, double total_ms) const {
        if (fixed_runs > 0) return done < fixed_runs;
        return done < kMinRuns || (done < kMaxRuns && total_ms < kTargetMs);
    }
};

}  // namespace labkit
