#pragma once
// The timings of the grader's own rows (each exercise's reference, timed in the grader process:
// GraderExercise::time_reference), kept in a folder (grade --kept-timings) and reused by a later
// grading that asks for the same ones. They depend on nothing a student writes: only on this
// grader program, the machine and the timing settings, all of which are in the key. On an H200
// node Lab 3's sequential reference alone took a minute of every `./labkit grade`
// (measurements/first-grade-2core-H200-2026-12-03-runB.md); kept, a second grade skips it.

#include <optional>
#include <string>
#include <vector>

#include "grader_exercise.hpp"
#include "protocol.hpp"

namespace grader {

struct KeptTiming {
    std::vector<protocol::PerfLine> lines;
    std::vector<std::string> notes;  // what the timing showed when it was taken (a busy machine, ...)
    std::string timed_at;            // ISO 8601, UTC
};

// The key of a row's timing: the exercise and row, every timing setting but the seed (a timed
// run draws its image afresh whatever the seed), this grader program (size, time), the machine's
// CPU, the cores this process may use and the machine's, and the variables the OpenMP runtime
// reads. One line.
std::string kept_timing_key(const std::string& exercise, const std::string& variant, const PerfSettings& settings);

// The timing kept in dir under key; none when there is none, it has another key, or it cannot
// be read whole.
std::optional<KeptTiming> read_kept_timing(const std::string& dir, const std::string& key);

// Keeps a timing in dir (made private, 0700) under key, replacing one there (best effort: a
// grading never fails for its cache; a note says why it was not kept).
void keep_timing(const std::string& dir, const std::string& key, const KeptTiming& timing);

}  // namespace grader
