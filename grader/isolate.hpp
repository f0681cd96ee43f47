// Runs a piece of grading in a child process, so that nothing a submission does — a hang, a
// deadlock, a segfault, a sticky CUDA error, an abort — can take the grader down.
//
// The child reports through a pipe, one "key<TAB>value" line at a time. Every line also proves
// the child is alive: the parent kills it (SIGKILL to its process group) when no line arrives
// for `silence_timeout_s`. The parent must not have touched CUDA before forking (a CUDA context
// does not survive fork), which is why the grader does all GPU work in children.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace grader {

// What a child writes. Values must not contain newlines (they are replaced by spaces).
class Reporter {
public:
    explicit Reporter(int fd) : fd_(fd) {}
    void send(const std::string& key, const std::string& value);

private:
    int fd_;
};

struct ChildOutcome {
    enum class End { exited, timed_out, crashed };
    End end = End::exited;
    int exit_code = 0;
    int signal = 0;
    double elapsed_s = 0;
    std::vector<std::pair<std::string, std::string>> lines;  // everything the child sent, in order

    // The value of the last line with this key, or "".
    std::string last(const std::string& key) const;
    std::string describe() const;  // "timed out after 30 s", "crashed: SIGSEGV", ...
};

// on_line, if given, sees every line as it arrives (for progress display).
using LineHandler = std::function<void(const std::string& key, const std::string& value)>;
ChildOutcome run_isolated(const std::function<void(Reporter&)>& body, double silence_timeout_s,
                          const LineHandler& on_line = {});

}  // namespace grader
