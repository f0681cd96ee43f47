// `<lab> grade`: checks every selected variant on every case, times the ones that pass, and
// writes the reports. Lab-independent.
#pragma once

#include <string>
#include <vector>

#include "lab_main.hpp"
#include "results.hpp"
#include "sandbox.hpp"
#include "sanitizer.hpp"
#include "session.hpp"

namespace grader {

// This side is built on what both sides share (harness/protocol/), named unqualified here.
using namespace protocol;

struct GradeOptions {
    RunnerSpec runner;
    const Sandbox* sandbox = nullptr;  // how the runner runs (never null when grading)
    std::vector<std::string> variant_globs{"*"};
    CaseSettings cases;
    PerfSettings perf;
    bool check = true, time = true;
    const Sanitizer* sanitizer = nullptr;  // GPU checks under compute-sanitizer (--sanitize); null: none
    // The GPU variants on the CPU (--emulate): the runner is an emulated one, no device is probed,
    // each GPU variant is checked under every schedule of a block's threads and never timed.
    bool emulate = false;
    double timeout_s = 60;  // of silence: the slowest honest case (8192^2 naive) is far below
    std::string diff_dir, label, json, csv, markdown;
};

// Throws std::invalid_argument when a --variants pattern matches no variant of the runner, or the
// runner is emulated and --emulate not given (or the other way round).
void validate_variants(const GradeOptions& options, const Exercises& exercises);

// Returns the exit status: 0 when nothing failed, 1 otherwise.
int grade(const LabDescription& lab, const Exercises& exercises, const GradeOptions& options);

}  // namespace grader
