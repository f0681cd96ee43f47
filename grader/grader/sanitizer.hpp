// `grade --sanitize TOOL`: compute-sanitizer in front of the runner, inside the runner's sandbox.
//
// Each GPU variant's check runs as `compute-sanitizer --tool TOOL ... runner check ...` under
// the same bubblewrap, user and limits as without it: the sanitizer must follow the runner (it
// injects itself into that process), so it goes into the sandbox with it, its own folder bound
// read-only, rather than the runner coming out. What it finds goes to the runner's log, and it
// exits kSanitizerFoundExit when it found anything. The log is shared with student code, which
// could print more "findings" (it only hurts itself) but not take back the sanitizer's exit
// status or its lines.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace grader {

inline constexpr int kSanitizerFoundExit = 99;  // a runner exits 0 or 1; labkit reads 99 as "errors found"
// The sanitizer slows kernels down 10-100x: a case's wall-clock allowance grows by this much.
inline constexpr double kSanitizerSlowdown = 20;

struct Sanitizer {
    std::string program;  // compute-sanitizer
    std::string tool;     // memcheck, racecheck, synccheck or initcheck

    // Checks the tool's name and finds the program (path: as given, else PATH, else the CUDA
    // toolkit's default place). Throws std::invalid_argument saying what is missing.
    static Sanitizer open(const std::string& tool, const std::string& path);
    static const std::vector<std::string>& tools();

    // The arguments to put in front of the runner's.
    std::vector<std::string> command() const;
    // The folder the sandbox must show read-only for the program to start (its toolkit).
    std::filesystem::path home() const;
};

// The first lines of a sanitizer's report (in a runner log) that name a problem, at most `most`.
std::vector<std::string> sanitizer_findings(const std::filesystem::path& log, std::size_t most);
// Copies the start of a runner log, where the sanitizer's report is, to `to` (the whole report
// for the student, beside the diff images). Returns false when it cannot.
bool keep_sanitizer_report(const std::filesystem::path& log, const std::filesystem::path& to);

}  // namespace grader
