#include "process.hpp"

#include "cgroup.hpp"

#include <fcntl.h>

#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace protocol {
namespace {
constexpr int kExecFailed = 127;  // what a shell returns for a program it could not start
}

std::string seconds_text(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", s);
    std::string out = text;
    if (out.ends_with(".0")) out.resize(out.size() - 2);
    return out;
}

std::string printable(const std::string& text) {
    // Control characters go (they move cursors and recolour tables); bytes that are not UTF-8
    // become U+FFFD, so that every report format (JSON above all, which refuses them) takes the
    // text as it is. Tabs stay.
    static constexpr char kReplacement[] = "\xEF\xBF\xBD";
    constexpr unsigned char kSpace = 0x20, kDelete = 0x7f;
    std::string out;
    out.reserve(text.size());
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x80) {
            if (u == '\t' || (u >= kSpace && u != kDelete)) out += text[i];
            ++i;
            continue;
        }
        // The length of a well-formed sequence starting here (RFC 3629: no overlong forms, no
        // surrogates, nothing above U+10FFFF), or 0.
        auto cont = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
            if (i + k >= n) return false;
            const auto c = static_cast<unsigned char>(text[i + k]);
            return c >= lo && c <= hi;
        };
        std::size_t len = 0;
        if (u >= 0xC2 && u <= 0xDF) len = cont(1) ? 2 : 0;
        else if (u == 0xE0) len = cont(1, 0xA0) && cont(2) ? 3 : 0;
        else if (u == 0xED) len = cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
        else if (u >= 0xE1 && u <= 0xEF) len = cont(1) && cont(2) ? 3 : 0;
        else if (u == 0xF0) len = cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
        else if (u >= 0xF1 && u <= 0xF3) len = cont(1) && cont(2) && cont(3) ? 4 : 0;
        else if (u == 0xF4) len = cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
        if (len == 0) {
            out += kReplacement;
            ++i;
        } else {
            out.append(text, i, len);
            i += len;
        }
    }
    return out;
}

Replies::Replies() {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds_) != 0)
        throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
}

Replies::~Replies() {
    ::close(fds_[0]);
    ::close(fds_[1]);
}

void Replies::send(const std::string& line) const {
    const std::string text = line + "\n";
    ::send(fds_[0], text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

std::string ChildOutcome::last(const std::string& key) const {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (it->first == key) return it->second;
    return "";
}

std::string ChildOutcome::describe() const {
    const std::string hit = limit.empty() ? "" : " (" + limit + ")";
    switch (end) {
        case End::timed_out:
        case End::over_limit:
            return why + hit;
        case End::not_started:
            return "could not be started";
        case End::crashed: {
            const char* name = sigabbrev_np(signal);
            return std::string("crashed: SIG") + (name ? name : "?") + " (signal " + std::to_string(signal) + ")" + hit;
        }
        case End::exited:
            return "exited with status " + std::to_string(exit_code) + hit;
    }
    return "";
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::uintmax_t folder_bytes(const std::filesystem::path& dir) {
    std::uintmax_t total = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
         it.increment(ec))
        if (it->is_regular_file(ec)) total += it->file_size(ec);
    return total;
}

// The child's stdout and stderr, into the log up to kMaxLogBytes; the rest is counted, not kept.
class CappedLog {
public:
    explicit CappedLog(const std::string& path) : file_(path.empty() ? nullptr : std::fopen(path.c_str(), "wb")) {}
    ~CappedLog() {
        if (!file_) return;
        if (dropped_ > 0)
            std::fprintf(file_, "\n[labkit: output cut at %ju bytes; %ju more bytes were discarded]\n", kMaxLogBytes,
                         dropped_);
        std::fclose(file_);
    }
    CappedLog(const CappedLog&) = delete;
    CappedLog& operator=(const CappedLog&) = delete;
    void write(const char* data, std::size_t n) {
        const std::size_t kept = std::min<std::uintmax_t>(n, kMaxLogBytes - std::min(written_, kMaxLogBytes));
        if (file_ && kept > 0) std::fwrite(data, 1, kept, file_);
        written_ += kept;
        dropped_ += n - kept;
    }

private:
    std::FILE* file_;
    std::uintmax_t written_ = 0, dropped_ = 0;
};

// Kills and reaps every process that was reparented to this one (it is their subreaper): what a
// child started and left behind (a double fork, a setsid daemon), without a sandbox's PID
// namespace to end it. Loops because killing one may orphan its own children.
void reap_orphans() {
    constexpr int kRounds = 50;
    for (int round = 0; round < kRounds; ++round) {
        bool found = false;
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
            const std::string name = entry.path().filename().string();
            if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
            std::ifstream stat(entry.path() / "stat");
            std::string line;
            std::getline(stat, line);
            const auto close = line.rfind(')');  // the command name may hold spaces and parentheses
            if (close == std::string::npos) continue;
            char state = 0;
            int ppid = 0;
            if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != ::getpid()) continue;
            const pid_t pid = std::stoi(name);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
            found = true;
        }
        if (!found) return;
    }
}

constexpr std::size_t kMaxLineBytes = 64 << 10;   // a report line is short; longer is noise
constexpr std::size_t kMaxKeptLines = 100000;      // lines kept for last(); more are seen, not kept

}  // namespace

ChildOutcome spawn(const std::vector<std::string>& argv, const SpawnOptions& options, const LineHandler& on_line) {
    // Orphans of the child come to this process rather than to init, so that none survives it.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    int report[2], output[2];
    if (::pipe2(report, O_CLOEXEC) != 0 || ::pipe2(output, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const Confinement& confinement = options.confinement;
    // A control group of its own for a sandboxed child, made before the fork (the child only
    // joins it), removed with whatever is still in it when this returns.
    const std::unique_ptr<ControlGroup> group =
        options.sandbox && options.sandbox->grouped() ? ControlGroups::here().make({confinement.processes, confinement.group_memory_bytes}) : nullptr;
    std::vector<std::string> command = options.sandbox ? options.sandbox->command(argv, confinement) : argv;
    std::vector<std::string> env = options.sandbox ? options.sandbox->environment() : std::vector<std::string>{};
    std::vector<char*> args, envp;
    for (auto& a : command) args.push_back(a.data());
    args.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t grader = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::setpgid(0, 0);  // its own group, so a kill also reaches anything it started
        // Only async-signal-safe calls from here to exec.
        const int null_in = options.replies ? options.replies->child_end() : ::open("/dev/null", O_RDONLY);
        if (null_in < 0 || ::dup2(null_in, 0) < 0 || ::dup2(output[1], 1) < 0 || ::dup2(output[1], 2) < 0 ||
            ::dup2(report[1], kReportFd) < 0)
            ::_exit(kExecFailed);
        if (group && !group->join()) ::_exit(kExecFailed);
        ::closefrom(kReportFd + 1);  // nothing else of the grader's is inherited
        if (options.sandbox) {
            if (!options.sandbox->enter(confinement)) ::_exit(kExecFailed);
            // Killed with the grader (a lab wall-clock kill), whatever group it moves to; set
            // after enter(), since a change of user clears it.
            if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != grader) ::_exit(kExecFailed);
            if (env.empty())
                ::execv(args[0], args.data());
            else
                ::execve(args[0], args.data(), envp.data());
        } else {
            ::execv(args[0], args.data());
        }
        ::_exit(kExecFailed);
    }
    ::setpgid(pid, pid);
    ::close(report[1]);
    ::close(output[1]);

    ChildOutcome out;
    CappedLog log(options.log_path);
    // The silence allowed now: the caller's line handler may change it as the child moves on.
    const auto silence_s = [&] { return options.silence_limit ? options.silence_limit->seconds : options.silence_timeout_s; };
    const auto start = Clock::now();
    auto last_progress = start;
    std::string pending;
    std::uintmax_t cut_bytes = 0;  // of the pending line, past kMaxLineBytes
    bool report_open = true, output_open = true;
    auto stop = [&](ChildOutcome::End end, std::string why) {
        if (group) group->kill_all();
        ::kill(-pid, SIGKILL);
        out.end = end;
        out.why = std::move(why);
        report_open = output_open = false;
    };
    auto take_line = [&](std::string line) {
        const auto tab = line.find('\t');
        std::string key = line.substr(0, tab), value = tab == std::string::npos ? "" : line.substr(tab + 1);
        const auto handled = Clock::now();
        const bool progress = !on_line || on_line(key, value);
        // The time the grader spent on the line (judging an answer, writing a diff image of an
        // 8192^2 case) is not the child's.
        last_progress += Clock::now() - handled;
        if (progress) last_progress = Clock::now();
        if (out.lines.size() < kMaxKeptLines) out.lines.emplace_back(std::move(key), std::move(value));
    };
    int status = 0;
    bool reaped = false;
    auto exited_at = start;
    while (report_open || output_open) {
        pollfd p[2] = {{report_open ? report[0] : -1, POLLIN, 0}, {output_open ? output[0] : -1, POLLIN, 0}};
        constexpr int kPollSliceMs = 200;  // how often the clocks and the watched folder are looked at
        const int ready = ::poll(p, 2, kPollSliceMs);
        if (ready < 0 && errno != EINTR) break;
        char buf[65536];
        if (ready > 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(output[0], buf, sizeof buf);
            if (n <= 0) output_open = false;
            else log.write(buf, static_cast<std::size_t>(n));
        }
        if (ready > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(report[0], buf, sizeof buf);
            if (n <= 0) {
                report_open = false;
            } else {
                // A line over kMaxLineBytes keeps its head (the key, the start of a message) and
                // says how much was cut; the rest, up to its newline, is counted, not kept.
                for (std::size_t at = 0; at < static_cast<std::size_t>(n);) {
                    const char* nl = static_cast<const char*>(std::memchr(buf + at, '\n', n - at));
                    const std::size_t end = nl ? static_cast<std::size_t>(nl - buf) : static_cast<std::size_t>(n);
                    const std::size_t room = kMaxLineBytes - std::min(kMaxLineBytes, pending.size());
                    pending.append(buf + at, std::min(room, end - at));
                    cut_bytes += end - at - std::min(room, end - at);
                    at = end;
                    if (!nl) break;
                    if (cut_bytes > 0) pending += " [labkit: line cut at " + std::to_string(kMaxLineBytes >> 10) +
                                                  " KiB; " + std::to_string(cut_bytes) + " more bytes discarded]";
                    take_line(printable(pending));
                    pending.clear();
                    cut_bytes = 0;
                    ++at;
                }
            }
        }
        if (!report_open && !output_open) break;
        // The child is gone but something it started holds the pipes: take what is in flight,
        // then end it (below) rather than wait for it.
        constexpr double kDrainS = 0.5;
        if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) {
            reaped = true;
            exited_at = Clock::now();
        }
        if (reaped && seconds_since(exited_at) > kDrainS) break;
        char why[160];
        if (seconds_since(last_progress) > silence_s()) {
            std::snprintf(why, sizeof why, "no progress for %s s: killed (a hang or deadlock?)", seconds_text(silence_s()).c_str());
            const std::string reason = options.silence_limit ? options.silence_limit->reason : "";
            stop(ChildOutcome::End::timed_out, why + (reason.empty() ? "" : "; " + reason));
        } else if (options.wall_limit_s > 0 && seconds_since(start) > options.wall_limit_s) {
            std::snprintf(why, sizeof why, "ran past its wall-clock limit of %.0f s: killed", options.wall_limit_s);
            stop(ChildOutcome::End::timed_out, why);
        } else if (options.watched_bytes > 0 && folder_bytes(options.watched) > options.watched_bytes) {
            std::snprintf(why, sizeof why, "wrote more than %ju MiB into its folder: killed", options.watched_bytes >> 20);
            stop(ChildOutcome::End::over_limit, why);
        }
    }
    ::close(report[0]);
    ::close(output[0]);
    // Both pipes are closed: the child exited, or closed them and lingers. Give it the same
    // allowance to exit, then kill its group: what it started must not outlive it either.
    while (out.why.empty() && !reaped) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            reaped = r == pid;
            break;
        }
        if (seconds_since(last_progress) > silence_s() ||
            (options.wall_limit_s > 0 && seconds_since(start) > options.wall_limit_s)) {
            out.end = ChildOutcome::End::timed_out;
            out.why = "did not exit after closing its pipes: killed";
            break;
        }
        constexpr auto kReapSlice = std::chrono::milliseconds(20);
        std::this_thread::sleep_for(kReapSlice);
    }
    if (group) group->kill_all();  // what it left behind in its group, whatever process group it moved to
    ::kill(-pid, SIGKILL);
    while (!reaped && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    reap_orphans();
    if (group) out.limit = group->limit_hit();
    out.silent_s = seconds_since(last_progress);
    if (out.why.empty()) {
        // bubblewrap passes on its child's death by signal N as the exit status 128 + N.
        constexpr int kSignalExitBase = 128, kLastSignal = 64;
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
        const bool sandboxed = options.sandbox && options.sandbox->confined();
        if (WIFSIGNALED(status)) {
            out.end = ChildOutcome::End::crashed;
            out.signal = WTERMSIG(status);
        } else if (sandboxed && code > kSignalExitBase && code <= kSignalExitBase + kLastSignal) {
            out.end = ChildOutcome::End::crashed;
            out.signal = code - kSignalExitBase;
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

}  // namespace protocol
