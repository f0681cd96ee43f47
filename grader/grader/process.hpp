// Runs another program (the runner, the device probe) with a report pipe, so that nothing it
// does — a hang, a deadlock, a segfault, a sticky CUDA error, an abort — can take the grader down.
//
// The child reports through a pipe on its file descriptor kReportFd, one "key<TAB>value" line at
// a time. The parent kills it (SIGKILL to its process group, and with it the sandbox) when it
// makes no progress for `silence_timeout_s` (or a SilenceLimit's current seconds), runs past
// `wall_limit_s`, or writes more than `watched_bytes` into the watched folder. What is progress
// is the caller's to say (an answer that came back, not any line of text). Its stdout and stderr
// go, through the parent, to a log file cut at kMaxLogBytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "report_pipe.hpp"
#include "sandbox.hpp"

namespace protocol {

inline constexpr std::uintmax_t kMaxLogBytes = 1u << 20;  // a log to read, not a disk to fill

struct ChildOutcome {
    enum class End { exited, timed_out, crashed, not_started, over_limit };
    End end = End::exited;
    int exit_code = 0;
    int signal = 0;
    double silent_s = 0;  // how long it had made no progress when it ended
    std::string why;      // timed_out, over_limit: which limit, in words
    std::string limit;    // a limit of its control group that it ran into ("ran out of memory (...)"), or ""
    std::vector<std::pair<std::string, std::string>> lines;  // everything the child sent, in order

    // The value of the last line with this key, or "".
    std::string last(const std::string& key) const;
    std::string describe() const;  // "no progress for 30 s: killed", "crashed: SIGSEGV", ...
};

// The parent's answers to a child's requests (Reporter::ask): a socket that is the child's
// stdin, written by the line handler. A socket, not a pipe, so that a child that is gone or
// does not read never blocks the parent nor raises SIGPIPE in it: its answer is lost.
class Replies {
public:
    Replies();  // throws std::runtime_error
    ~Replies();
    Replies(const Replies&) = delete;
    Replies& operator=(const Replies&) = delete;
    void send(const std::string& line) const;
    int child_end() const { return fds_[1]; }

private:
    int fds_[2];
};

// A silence limit that changes while the child runs: the caller's line handler sets it as the
// child moves on (a runner call gives each case a deadline of its own, grader::check_variant).
// The silence is still counted from the last progress; `reason` says where the limit came from,
// after the timeout's "no progress for N s" ("" adds nothing).
struct SilenceLimit {
    double seconds = 60;
    std::string reason;
};

struct SpawnOptions {
    double silence_timeout_s = 60;
    const SilenceLimit* silence_limit = nullptr;  // read at every look at the clocks; nullptr: silence_timeout_s
    std::string log_path;  // the child's stdout and stderr; empty: discarded
    double wall_limit_s = 0;  // 0: none
    const Sandbox* sandbox = nullptr;  // student code; nullptr: a kit program, run as it is
    Confinement confinement;           // with a sandbox
    std::filesystem::path watched;     // a folder the child writes (its answers), capped in size
    std::uintmax_t watched_bytes = 0;
    const Replies* replies = nullptr;  // the child's stdin; nullptr: /dev/null
};

// on_line, if given, sees every line as it arrives (answers to judge at once) and returns
// whether it was progress; without one, every line is.
using LineHandler = std::function<bool(const std::string& key, const std::string& value)>;
ChildOutcome spawn(const std::vector<std::string>& argv, const SpawnOptions& options, const LineHandler& on_line = {});

// Text from a child (student code: exception messages, logs) without control characters, so
// that nothing it prints can move the cursor or recolour the grader's tables. Tabs stay.
std::string printable(const std::string& text);

// Seconds as a report says them: "2", "2.5", "60" (one decimal, none when it is 0).
std::string seconds_text(double s);

// The last `lines` lines of a text file, joined by " | " (for a detail column), or "".
std::string log_tail(const std::string& path, int lines);

}  // namespace protocol
