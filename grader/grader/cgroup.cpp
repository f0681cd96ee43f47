#include "cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

namespace protocol {
namespace fs = std::filesystem;

namespace {

const fs::path kMount = "/sys/fs/cgroup";
// An instructor's way to grade without them (and the tests' way to see the kit without them).
constexpr const char* kSwitch = "LABKIT_CGROUPS";
const std::string kPrefix = "labkit-";                 // labkit-<pid>: one grader's (or compile's) folder
constexpr const char* kControllers[] = {"pids", "memory"};
constexpr auto kEmptyWait = std::chrono::seconds(5);  // killed processes leave their group within ms
constexpr auto kEmptyPoll = std::chrono::milliseconds(10);

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Writes a control file; "" on success, else why not.
std::string write_text(const fs::path& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return path.string() + ": " + std::strerror(errno);
    const ssize_t n = ::write(fd, text.data(), text.size());
    const int err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size())) return path.string() + ": " + std::strerror(err);
    return "";
}

std::set<std::string> words(const std::string& text) {
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;) out.insert(w);
    return out;
}

// The value of "key N" in a flat-keyed file (memory.events, pids.events, memory.oom_control).
long long keyed(const fs::path& path, const std::string& key) {
    std::istringstream in(read_text(path));
    std::string k;
    long long v = 0;
    while (in >> k >> v)
        if (k == key) return v;
    return 0;
}

// /proc/self/cgroup: hierarchy -> this process's path in it ("" for v2's unified one).
std::map<std::string, std::string> own_groups() {
    std::map<std::string, std::string> out;
    std::istringstream in(read_text("/proc/self/cgroup"));
    for (std::string line; std::getline(in, line);) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (controllers.empty()) out[""] = path;
        std::istringstream list(controllers);
        for (std::string c; std::getline(list, c, ',');) out[c] = path;
    }
    return out;
}

bool is_cgroup2(const fs::path& dir) {
    struct statfs s{};
    return ::statfs(dir.c_str(), &s) == 0 && static_cast<unsigned long>(s.f_type) == CGROUP2_SUPER_MAGIC;
}

// v2: makes pids and memory available in `dir`'s children, enabling them in every ancestor
// that lacks them, from the top down. "" on success, else why not.
std::string enable_controllers(const fs::path& dir) {
    const auto have = words(read_text(dir / "cgroup.subtree_control"));
    std::string wanted;
    for (const char* c : kControllers)
        if (!have.contains(c)) wanted += std::string(wanted.empty() ? "" : " ") + "+" + c;
    if (wanted.empty()) return "";
    const auto available = words(read_text(dir / "cgroup.controllers"));
    for (const char* c : kControllers)
        if (!available.contains(c)) {
            if (dir == kMount) return std::string("the ") + c + " controller is not in the kernel's cgroup v2";
            if (auto why = enable_controllers(dir.parent_path()); !why.empty()) return why;
            break;
        }
    return write_text(dir / "cgroup.subtree_control", wanted);
}

char* format_pid(char* end, pid_t pid) noexcept {  // async-signal-safe decimal, written backwards
    do {
        *--end = static_cast<char>('0' + pid % 10);
        pid /= 10;
    } while (pid > 0);
    return end;
}

}  // namespace

ControlGroup::ControlGroup(std::vector<fs::path> dirs, int version, GroupLimits limits)
    : dirs_(std::move(dirs)), version_(version), limits_(limits) {
    for (const auto& d : dirs_) {
        const int fd = ::open((d / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            const std::string why = (d / "cgroup.procs").string() + ": " + std::strerror(errno);
            release();
            throw std::runtime_error("cannot open " + why);
        }
        procs_fds_.push_back(fd);
    }
}

ControlGroup::~ControlGroup() { release(); }

void ControlGroup::release() noexcept {
    for (const int fd : procs_fds_) ::close(fd);
    procs_fds_.clear();
    kill_all();
    for (const auto& d : dirs_) {
        const auto deadline = std::chrono::steady_clock::now() + kEmptyWait;
        while (::rmdir(d.c_str()) != 0 && errno == EBUSY && std::chrono::steady_clock::now() < deadline) {
            kill_all();
            std::this_thread::sleep_for(kEmptyPoll);
        }
    }
    dirs_.clear();
}

bool ControlGroup::join() const noexcept {
    char buf[24];
    char* end = buf + sizeof buf;
    char* start = format_pid(end, ::getpid());
    for (const int fd : procs_fds_)
        if (::write(fd, start, static_cast<std::size_t>(end - start)) != end - start) return false;
    return true;
}

void ControlGroup::kill_all() const noexcept {
    for (const auto& d : dirs_) {
        if (version_ == 2 && write_text(d / "cgroup.kill", "1").empty()) continue;  // Linux 5.14+: the kernel does it
        std::istringstream in(read_text(d / "cgroup.procs"));
        for (long pid; in >> pid;)
            if (pid > 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
}

std::string ControlGroup::limit_hit() const {
    constexpr int kMiB = 20;
    for (const auto& d : dirs_) {
        const bool oom = keyed(d / (version_ == 2 ? "memory.events" : "memory.oom_control"), "oom_kill") > 0;
        if (oom && limits_.memory_bytes > 0)
            return "ran out of memory (its limit: " + std::to_string(limits_.memory_bytes >> kMiB) + " MiB)";
        if (keyed(d / "pids.events", "max") > 0)
            return "hit its limit of " + std::to_string(limits_.processes) + " processes and threads";
    }
    return "";
}

const ControlGroups& ControlGroups::here() {
    static ControlGroups groups = [] {
        ControlGroups g;
        g.find();
        return g;
    }();
    return groups;
}

void ControlGroups::find() {
    const std::string name = kPrefix + std::to_string(::getpid());
    const auto own = own_groups();
    std::string why;
    auto fail = [&](const std::string& reason) {
        for (const auto& b : bases_) ::rmdir(b.c_str());
        bases_.clear();
        version_ = 0;
        description_ = "no control groups: " + reason + "; limits per uid only (one submission at a time)";
    };
    if (const char* setting = std::getenv(kSwitch); setting && std::string(setting) == "off")
        return fail(std::string("turned off (") + kSwitch + "=off)");
    if (is_cgroup2(kMount)) {
        // Beside this process's group, not in it: a group that holds processes cannot pass
        // controllers on to its children. In the root group (no other place) it may.
        const fs::path mine = kMount / fs::path(own.contains("") ? own.at("") : "/").relative_path();
        const fs::path parent = mine == kMount ? mine : mine.parent_path();
        if (::access((parent / "cgroup.procs").c_str(), W_OK) != 0)
            return fail(parent.string() + " is not writable (root, or a delegated group, is needed)");
        if (why = enable_controllers(parent); !why.empty()) return fail(why);
        const fs::path base = parent / name;
        if (::mkdir(base.c_str(), 0755) != 0 && errno != EEXIST) return fail(base.string() + ": " + std::strerror(errno));
        bases_ = {base};
        if (why = enable_controllers(base); !why.empty()) return fail(why);
        version_ = 2;
    } else {
        for (const char* c : kControllers) {
            const fs::path root = kMount / c;
            if (!fs::exists(root / "cgroup.procs")) return fail(std::string("no cgroup v1 ") + c + " hierarchy at " + root.string());
            const fs::path base = root / fs::path(own.contains(c) ? own.at(c) : "/").relative_path() / name;
            if (::mkdir(base.c_str(), 0755) != 0 && errno != EEXIST)
                return fail(base.string() + ": " + std::strerror(errno) + " (root, or a delegated group, is needed)");
            bases_.push_back(base);
        }
        version_ = 1;
    }
    for (const auto& b : bases_) remove_leftovers_of_dead(b.parent_path(), kPrefix, true);
    description_ = "control groups (cgroup v" + std::to_string(version_) + "): processes and memory limited per sandbox";
}

ControlGroups::~ControlGroups() {
    for (const auto& b : bases_) ::rmdir(b.c_str());  // empty by now: every group was removed
}

std::unique_ptr<ControlGroup> ControlGroups::make(const GroupLimits& limits) const {
    if (!available()) throw std::runtime_error(description_);
    static std::atomic<unsigned> next{0};
    const std::string name = "run-" + std::to_string(next++);
    std::vector<fs::path> dirs;
    auto undo = [&](const std::string& why) {
        for (const auto& d : dirs) ::rmdir(d.c_str());
        throw std::runtime_error("cannot make a control group: " + why);
    };
    for (const auto& b : bases_) {
        const fs::path d = b / name;
        if (::mkdir(d.c_str(), 0755) != 0) undo(d.string() + ": " + std::strerror(errno));
        dirs.push_back(d);
    }
    // Which folder holds which controller's files: v2 all in one, v1 pids first, then memory.
    const fs::path& pids = dirs.front();
    const fs::path& memory = dirs.back();
    std::string why;
    if (limits.processes > 0) why = write_text(pids / "pids.max", std::to_string(limits.processes));
    if (why.empty() && limits.memory_bytes > 0) {
        const std::string bytes = std::to_string(limits.memory_bytes);
        if (version_ == 2) {
            why = write_text(memory / "memory.max", bytes);
            if (why.empty() && fs::exists(memory / "memory.swap.max")) why = write_text(memory / "memory.swap.max", "0");
        } else {
            why = write_text(memory / "memory.limit_in_bytes", bytes);
            if (why.empty() && fs::exists(memory / "memory.memsw.limit_in_bytes"))
                why = write_text(memory / "memory.memsw.limit_in_bytes", bytes);
        }
    }
    if (!why.empty()) undo(why);
    return std::make_unique<ControlGroup>(std::move(dirs), version_, limits);
}

void remove_leftovers_of_dead(const fs::path& dir, const std::string& prefix, bool directories_only_empty) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const std::string rest = name.substr(prefix.size());
        const std::string digits = rest.substr(0, rest.find_first_not_of("0123456789"));
        if (digits.empty() || digits.size() > 9 || (rest.size() > digits.size() && rest[digits.size()] != '-')) continue;
        const pid_t pid = static_cast<pid_t>(std::stol(digits));
        if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno == EPERM) continue;  // alive
        if (directories_only_empty) {
            // A group: its own children first (removing a group removes no files: it must be empty).
            for (const auto& child : fs::directory_iterator(entry.path(), ec))
                if (child.is_directory(ec)) ::rmdir(child.path().c_str());
            ::rmdir(entry.path().c_str());
        } else {
            fs::remove_all(entry.path(), ec);
        }
    }
}

}  // namespace protocol
