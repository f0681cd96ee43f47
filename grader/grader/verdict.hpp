// Verdicts, in the words the tables and the JSON use.
#pragma once

#include <string_view>

namespace protocol {

// not_run: written and compiled, but not checked here (a GPU variant on a machine without a GPU).
// pass_emulated: a GPU variant whose every case was right on the CPU (grade --emulate), under
// every schedule; never a GPU's pass (no timings, no points).
enum class Status { pass, pass_emulated, fail, todo, not_run, skipped, timeout, crash, error };

constexpr std::string_view status_name(Status s) {
    switch (s) {
        case Status::pass: return "pass";
        case Status::pass_emulated: return "pass-emulated";
        case Status::fail: return "fail";
        case Status::todo: return "todo";
        case Status::not_run: return "not-run";
        case Status::skipped: return "skipped";
        case Status::timeout: return "timeout";
        case Status::crash: return "crash";
        case Status::error: return "error";
    }
    return "?";
}

// What the terminal shows: loud for problems, plain for the rest.
constexpr std::string_view status_label(Status s) {
    switch (s) {
        case Status::pass: return "PASS";
        case Status::pass_emulated: return "pass (emulated)";
        case Status::fail: return "FAIL";
        case Status::todo: return "TODO";
        case Status::not_run: return "not run";
        case Status::skipped: return "skipped";
        case Status::timeout: return "TIMEOUT";
        case Status::crash: return "CRASH";
        case Status::error: return "ERROR";
    }
    return "?";
}

// Problems that count against a submission; TODO, not run and skipped do not.
constexpr bool is_failure(Status s) {
    return s == Status::fail || s == Status::timeout || s == Status::crash || s == Status::error;
}

}  // namespace protocol
