// Runs another program (the runner, the device probe) with a report pipe, so that nothing it
// does — a hang, a deadlock, a segfault, a sticky CUDA error, an abort — can take the grader down.
//
// The child reports through a pipe on its file descriptor kReportFd, one "key<TAB>value" line at
// a time. Every line also proves the child is alive: the parent kills it (SIGKILL to its process
// group) when no line arrives for `silence_timeout_s`. Its stdout and stderr go to a log file.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace grader {

inline constexpr int kReportFd = 3;  // the first descriptor after stdin, stdout and stderr

// What a child writes. Values must not contain newlines (they are replaced by spaces).
class Reporter {
public:
    explicit Reporter(int fd) : fd_(fd) {}
    void send(const std::string& key, const std::string& value);

private:
    int fd_;
};

struct ChildOutcome {
    enum class End { exited, timed_out, crashed, not_started };
    End end = End::exited;
    int exit_code = 0;
    int signal = 0;
    double silent_s = 0;  // how long it had been quiet when it ended
    std::vector<std::pair<std::string, std::string>> lines;  // everything the child sent, in order

    // The value of the last line with this key, or "".
    std::string last(const std::string& key) const;
    std::string describe() const;  // "no progress for 30 s: killed", "crashed: SIGSEGV", ...
};

struct SpawnOptions {
    double silence_timeout_s = 60;
    std::string log_path;  // the child's stdout and stderr; empty: /dev/null
};

// on_line, if given, sees every line as it arrives (progress, answers to judge at once).
using LineHandler = std::function<void(const std::string& key, const std::string& value)>;
ChildOutcome spawn(const std::vector<std::string>& argv, const SpawnOptions& options, const LineHandler& on_line = {});

// Text from a child (student code: exception messages, logs) without control characters, so
// that nothing it prints can move the cursor or recolour the grader's tables. Tabs stay.
std::string printable(const std::string& text);

// The last `lines` lines of a text file, joined by " | " (for a detail column), or "".
std::string log_tail(const std::string& path, int lines);

}  // namespace grader
