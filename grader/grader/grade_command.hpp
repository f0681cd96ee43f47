// `<lab>_grader grade`: its options and the GradeOptions they make (grade.hpp), each checked
// before any work is done. The options of its Grading group choose what is checked and timed: a
// front end (./labkit grade, grade-all, bench) hands them on as given, learning them from
// `<lab>_grader options` (print_options), so this file is their only definition. Its other
// options (the runner, the sandbox, where reports go) are the front end's to set.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "command_line.hpp"
#include "grade.hpp"

namespace grader {

class GradeCommand {
public:
    static inline const std::string kGroup = "Grading";

    // Adds `grade` to app; runner: the options it shares with the other subcommands.
    GradeCommand(CLI::App& app, RunnerOptions& runner, const LabDescription& lab, const Exercises& exercises);
    GradeCommand(const GradeCommand&) = delete;  // the command line holds its members' addresses
    GradeCommand& operator=(const GradeCommand&) = delete;
    bool chosen() const { return cmd_->parsed(); }
    // `options`: the Grading group, as JSON [{name, value, type, default, help}].
    int print_options() const;
    // Grades as the command line says; the exit status (--validate-only: 0 once the options are good).
    // Throws std::invalid_argument for options that do not go together or name what is not there.
    int run(const Sandbox& sandbox);

private:
    GradeOptions settle(const Sandbox& sandbox);

    CLI::App* cmd_;
    RunnerOptions& runner_;
    const LabDescription& lab_;
    const Exercises& exercises_;
    GradeOptions g_;
    std::string sizes_ = "default", perf_sizes_, perf_params_, perf_patterns_, globs_ = "*", threads_;
    std::string photos_;
    std::string labels_;         // the timed parameters' labels, for --perf-params ("" for a lab without)
    std::string pattern_names_;  // the shared patterns, for --perf-patterns
    int runs_ = 0;
    std::uint64_t seed_ = 0;
    CLI::Option* sizes_opt_ = nullptr;
    CLI::Option* seed_opt_ = nullptr;
    bool quick_ = false, no_perf_ = false, no_check_ = false, validate_only_ = false;
    double cpu_max_gflop_;
    std::string sanitize_tool_, sanitizer_path_;
};

}  // namespace grader
