// What the subcommands of a lab's grader (lab_main.cpp, grade_command.cpp) share on the command
// line: the runner they drive and how, and the checks of a count, a number and an output path.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "lab_description.hpp"
#include "session.hpp"

namespace grader {

inline constexpr int kUsageExit = 2;
inline constexpr double kDefaultTimeoutS = 60;  // of silence: the slowest honest case (8192^2 naive) is far below

// Counts and seconds: 0, negative or not a number is refused, with a message that says so.
extern const CLI::Validator kPositive;

// An output file must be writable before any work is done: its folder exists and is writable,
// and the path is not a folder. Throws std::invalid_argument naming the option.
void check_output_path(const std::string& path, const std::string& option);

// "4,8" -> {4, 8}; throws std::invalid_argument naming `what` for an item that is not a positive whole number.
std::vector<int> to_ints(const std::vector<std::string>& items, const std::string& what);

// The runner a subcommand drives (list, grade, run), how it runs, and its silence timeout.
struct RunnerOptions {
    RunnerSpec runner;
    std::string sandbox_spec = "auto";
    double timeout = kDefaultTimeoutS;

    // The runner and the Python track of the lab's starter by default (the track's contract is the
    // caller's to fill in: runner.python.contract, when runner.python.track is not empty).
    explicit RunnerOptions(const LabDescription& lab);
    // --runner, --python..., --sandbox on cmd.
    void add_to(CLI::App* cmd, const LabDescription& lab, const std::string& grading_group);
};

}  // namespace grader
