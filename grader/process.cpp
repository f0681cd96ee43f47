#include "process.hpp"

#include <fcntl.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace grader {
namespace {
constexpr int kExecFailed = 127;  // what a shell returns for a program it could not start
}

std::string printable(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    constexpr unsigned char kSpace = 0x20, kDelete = 0x7f;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\t' || (u >= kSpace && u != kDelete)) out += c;  // UTF-8 bytes (>= 0x80) stay
    }
    return out;
}

void Reporter::send(const std::string& key, const std::string& value) {
    std::string line = key + "\t" + value;
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';
    line += '\n';
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the parent is gone; nothing useful left to do
        done += static_cast<std::size_t>(n);
    }
}

std::string ChildOutcome::last(const std::string& key) const {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (it->first == key) return it->second;
    return "";
}

std::string ChildOutcome::describe() const {
    char buf[128];
    switch (end) {
        case End::timed_out:
            std::snprintf(buf, sizeof buf, "no progress for %.0f s: killed (a hang or deadlock?)", silent_s);
            return buf;
        case End::not_started:
            return "could not be started";
        case End::crashed: {
            const char* name = sigabbrev_np(signal);
            return std::string("crashed: SIG") + (name ? name : "?") + " (signal " + std::to_string(signal) + ")";
        }
        case End::exited:
            std::snprintf(buf, sizeof buf, "exited with status %d", exit_code);
            return buf;
    }
    return "";
}

ChildOutcome spawn(const std::vector<std::string>& argv, const SpawnOptions& options, const LineHandler& on_line) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const std::string log = options.log_path.empty() ? "/dev/null" : options.log_path;
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::setpgid(0, 0);  // its own group, so a kill also reaches anything it started
        // Only async-signal-safe calls from here to exec.
        const int null_in = ::open("/dev/null", O_RDONLY);
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (null_in < 0 || out < 0 || ::dup2(null_in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(out, 2) < 0 ||
            ::dup2(fds[1], kReportFd) < 0)
            ::_exit(kExecFailed);
        ::closefrom(kReportFd + 1);  // nothing else of the grader's is inherited
        ::execv(args[0], args.data());
        ::_exit(kExecFailed);
    }
    ::setpgid(pid, pid);
    ::close(fds[1]);

    ChildOutcome out;
    const auto start = std::chrono::steady_clock::now();
    auto last_heard = start;
    std::string pending;
    bool open = true;
    while (open) {
        pollfd p{fds[0], POLLIN, 0};
        constexpr int kPollSliceMs = 200;  // how often the silence clock is looked at
        const int ready = ::poll(&p, 1, kPollSliceMs);
        if (ready > 0) {
            char buf[4096];
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            if (n <= 0) {
                open = false;
            } else {
                pending.append(buf, static_cast<std::size_t>(n));
                std::size_t nl;
                while ((nl = pending.find('\n')) != std::string::npos) {
                    const std::string line = printable(pending.substr(0, nl));
                    pending.erase(0, nl + 1);
                    const auto tab = line.find('\t');
                    out.lines.emplace_back(line.substr(0, tab), tab == std::string::npos ? "" : line.substr(tab + 1));
                    if (on_line) on_line(out.lines.back().first, out.lines.back().second);
                }
                // The time the grader spent on those lines (judging an answer, writing a diff
                // image of an 8192^2 case) is not the child's silence.
                last_heard = std::chrono::steady_clock::now();
            }
        } else if (ready < 0 && errno != EINTR) {
            open = false;
        }
        if (open && std::chrono::duration<double>(std::chrono::steady_clock::now() - last_heard).count() >
                        options.silence_timeout_s) {
            ::kill(-pid, SIGKILL);
            out.end = ChildOutcome::End::timed_out;
            open = false;
        }
    }
    ::close(fds[0]);
    // The pipe is closed: the child exited, or closed it and lingers. Give it the same silence
    // allowance to exit, then kill its group: what it started must not outlive it either.
    int status = 0;
    bool reaped = false;
    while (out.end != ChildOutcome::End::timed_out) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            reaped = r == pid;
            break;
        }
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_heard).count() >
            options.silence_timeout_s) {
            out.end = ChildOutcome::End::timed_out;
            break;
        }
        constexpr auto kReapSlice = std::chrono::milliseconds(20);
        std::this_thread::sleep_for(kReapSlice);
    }
    ::kill(-pid, SIGKILL);
    while (!reaped && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.silent_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_heard).count();
    if (out.end != ChildOutcome::End::timed_out) {
        if (WIFSIGNALED(status)) {
            out.end = ChildOutcome::End::crashed;
            out.signal = WTERMSIG(status);
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == kExecFailed && out.lines.empty()) {
            out.end = ChildOutcome::End::not_started;
            out.exit_code = kExecFailed;
        } else if (WIFEXITED(status)) {
            out.exit_code = WEXITSTATUS(status);
        }
    }
    return out;
}

std::string log_tail(const std::string& path, int lines) {
    std::ifstream in(path);
    std::vector<std::string> all;
    for (std::string line; std::getline(in, line);)
        if (line = printable(line); !line.empty()) all.push_back(line);
    std::string out;
    for (std::size_t i = all.size() > static_cast<std::size_t>(lines) ? all.size() - lines : 0; i < all.size(); ++i)
        out += (out.empty() ? "" : " | ") + all[i];
    constexpr std::size_t kMaxChars = 300;  // a detail column, not a log
    return out.size() > kMaxChars ? out.substr(out.size() - kMaxChars) : out;
}

}  // namespace grader
