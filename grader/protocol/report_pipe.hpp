// The report pipe, from the child's side: a program the grader runs (a runner, the device probe)
// reports on file descriptor kReportFd, one "key<TAB>value" line at a time, and asks on it for
// what the grader answers on its stdin (protocol.hpp lists the lines; the grader's process.hpp
// reads them).
#pragma once

#include <string>

namespace protocol {

inline constexpr int kReportFd = 3;  // the first descriptor after stdin, stdout and stderr

// What a child writes. Values must not contain newlines (they are replaced by spaces).
class Reporter {
public:
    explicit Reporter(int fd) : fd_(fd) {}
    void send(const std::string& key, const std::string& value);
    // A request: sends the line, then waits for the parent's one-line answer on stdin
    // (SpawnOptions::replies). Throws std::runtime_error when none comes (stdin closed).
    std::string ask(const std::string& key, const std::string& value);

private:
    int fd_;
};

}  // namespace protocol
