// Timing a lab's passing variants (perf_timing.cpp): each timed run on an input drawn when it
// starts, outputs checked at random, and the flags (timings not to be trusted) and notes (a busy
// machine, idle threads) they earn.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "grade.hpp"
#include "labkit/table.hpp"
#include "report.hpp"
#include "session.hpp"

namespace grader {

// What timing one variant gave: its measurements, and what the grader saw of them.
struct Timing {
    std::vector<PerfPoint> points;
    std::vector<std::string> flags;  // why its timings are not to be trusted (flagged for review)
    std::vector<std::string> notes;  // what the timings show that costs nothing (VariantResult::notes)
    std::string wrong;               // the output of a timed run was wrong: the variant fails
    std::string problem;             // the runner failed while timing
    // CPU measurements that kept more threads busy (or wanting a core) than they were given: each
    // a flag only once a repeat confirms it (confirm_busy); what was seen, in words.
    struct Busy {
        PerfLine line;
        std::string seen;
    };
    std::vector<Busy> busy;
};

// An exercise as this grading times it: --perf-patterns replaces the contract's perf_patterns,
// and --quick (PerfSettings::first_only) keeps the first of its patterns and timed parameters.
ExerciseInfo timed_info(const GraderExercise& ex, const GradeOptions& o);
// One variant's timings (the reference's: read back from --kept-timings where kept).
Timing time_variant(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                    const std::filesystem::path& work, labkit::Progress& progress);

}  // namespace grader
