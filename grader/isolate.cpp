#include "isolate.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

namespace grader {

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
            std::snprintf(buf, sizeof buf, "no progress for %.0f s: killed (a hang or deadlock?)", elapsed_s);
            return buf;
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

ChildOutcome run_isolated(const std::function<void(Reporter&)>& body, double silence_timeout_s,
                          const LineHandler& on_line) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::setpgid(0, 0);  // its own group, so a kill also reaches anything it started
        // Die of a fatal signal plainly, whatever handlers the parent installed (a test framework's,
        // say): the parent reads the signal from the exit status and reports it.
        for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
        ::close(fds[0]);
        Reporter reporter(fds[1]);
        int code = 0;
        try {
            body(reporter);
        } catch (const std::exception& e) {
            reporter.send("exception", e.what());
            code = 3;
        } catch (...) {
            reporter.send("exception", "unknown exception");
            code = 3;
        }
        std::fflush(stdout);
        std::fflush(stderr);
        ::_exit(code);  // skip atexit handlers and static destructors of the parent's image
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
        const auto now = std::chrono::steady_clock::now();
        if (ready > 0) {
            char buf[4096];
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            if (n <= 0) {
                open = false;
            } else {
                last_heard = now;
                pending.append(buf, static_cast<std::size_t>(n));
                std::size_t nl;
                while ((nl = pending.find('\n')) != std::string::npos) {
                    const std::string line = pending.substr(0, nl);
                    pending.erase(0, nl + 1);
                    const auto tab = line.find('\t');
                    out.lines.emplace_back(line.substr(0, tab), tab == std::string::npos ? "" : line.substr(tab + 1));
                    if (on_line) on_line(out.lines.back().first, out.lines.back().second);
                }
            }
        } else if (ready < 0 && errno != EINTR) {
            open = false;
        }
        if (open && std::chrono::duration<double>(now - last_heard).count() > silence_timeout_s) {
            ::kill(-pid, SIGKILL);
            out.end = ChildOutcome::End::timed_out;
            open = false;
        }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_heard).count();
    if (out.end != ChildOutcome::End::timed_out) {
        if (WIFSIGNALED(status)) {
            out.end = ChildOutcome::End::crashed;
            out.signal = WTERMSIG(status);
        } else {
            out.exit_code = WEXITSTATUS(status);
        }
    }
    return out;
}

}  // namespace grader
