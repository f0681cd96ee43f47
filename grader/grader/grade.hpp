// `<lab> grade`: checks every selected variant on every case, times the ones that pass, and
// writes the reports. Lab-independent.
#pragma once

#include <string>
#include <vector>

#include "lab_description.hpp"
#include "results.hpp"
#include "sandbox.hpp"
#include "sanitizer.hpp"
#include "session.hpp"

namespace grader {

// This side is built on what both sides share (grader/protocol/), named unqualified here.
using namespace protocol;

// Each case of a `runner check` call has a deadline of its own: the silence (time without an
// answer) it is allowed, made from the reference's wall time on that case (GraderExercise::
// reference_seconds, measured when the expected outputs are built). --timeout stays the most any
// case is allowed. One fixed silence made a deadlocked kernel cost the whole --timeout in every
// configuration of its step, one after another (six minutes for Lab 1's gpu-04 at 60 s).
//   kDeadlineFactor: the reference is the sequential CPU code; an honest GPU variant is faster
//     on every case, and an honest CPU variant (given every core) at most a few times slower, as
//     on a loaded machine (a 2-core node at load 8 gives a process a quarter of a core). 20x
//     leaves room for both at once.
//   kDeadlineFloorS: a small case's reference takes microseconds; its answer still reads the
//     input and writes a file, and meets scheduling delays on a loaded node and the lazy load of
//     a kernel first used in this case (the digest kernel of the first large case; a JIT from
//     PTX where the build lacks the GPU's architecture takes up to about a second per kernel).
//   kRunnerStartS: the first case of a call also pays the runner's start: the sandbox, the CUDA
//     context (a second or two on a node whose driver is not kept loaded), module loading.
// Variants that no reference time predicts keep the fixed --timeout: emulated and simulated GPU
// variants (fibers on the CPU, 100x and more slower) and the Python track's (its drivers import
// and compile kernels, for each new shape or parameter, inside the cases).
inline constexpr double kDeadlineFactor = 20;
inline constexpr double kDeadlineFloorS = 2;
//   kCpuDeadlineFloorS: a CPU variant's floor. An OpenMP team on a loaded node waits at each
//     barrier for a thread the scheduler took away (a 1x4099 case of an honest team took over 2 s
//     at load 6 to 10 on 2 cores); a lab has few CPU variants, so a hung one costs little more.
inline constexpr double kCpuDeadlineFloorS = 10;
inline constexpr double kRunnerStartS = 5;
// Once one configuration of a step (the rows of one table line: the same exercise, kind and
// summary, e.g. gpu-04-single-pass-s256-b8 and -s512-b8) has hung, its siblings most likely hang
// the same way: each of their cases, the first included (the driver is warm by then), is allowed
// this long. An honest GPU case of the kit's sizes answers in well under a second.
inline constexpr double kHungStepS = 2;
// A submission whose every GPU step deadlocks (Lab 1 has 12 steps of 32 configurations) would still
// pay each step's first deadline and each sibling's short one: 12 x 7 s + 20 x 2 s, about two
// minutes a lab. Once the GPU variants of one grading have spent kGpuHangBudgetS hung, each later
// step's first configuration gets kHungStepS too, and once it hangs, the step's other
// configurations are not run: TIMEOUT, naming the configuration that hung. Such a submission then
// costs the budget, the step that spent it and kHungStepS a later step (tests/hang_selftest.py: 24
// variants of 8 steps, 42 s on an H200); its honest steps are still checked.
inline constexpr double kGpuHangBudgetS = 30;

// The kit's wall-clock limits of one runner call, beyond the silence limit: a few silences,
// plus an allowance per case or measurement (the slowest honest ones, 8192^2 on one CPU core,
// take seconds).
inline constexpr double kWallSilences = 2;
inline constexpr double kWallPerCaseS = 2;
inline constexpr double kWallPerMeasurementS = 30;

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
    // The grader's own rows' timings kept in this folder and reused where the key is the same
    // (kept_timings.hpp); empty: each is timed.
    std::string kept_timings;
    double timeout_s = 60;  // of silence, the most for any case: the slowest honest case (8192^2 naive) is far below
    std::string diff_dir, label, json, csv, markdown;
};

// Throws std::invalid_argument when a --variants pattern matches no variant of the runner, or the
// runner is emulated and --emulate not given (or the other way round).
void validate_variants(const GradeOptions& options, const Exercises& exercises);

// Returns the exit status: 0 when nothing failed, 1 otherwise.
int grade(const LabDescription& lab, const Exercises& exercises, const GradeOptions& options);

}  // namespace grader
