#include "sandbox.hpp"

#include "cgroup.hpp"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace protocol {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kScratchBytes = 64ull << 20;  // the private /tmp and /dev/shm: room for a student's temp file, not a disk
constexpr double kProbeTimeoutS = 10;                   // bwrap starts in milliseconds; a hang means it cannot

// What a runner may see of the environment: CUDA's device selection (Slurm sets it) and where
// its driver library lives on clusters that use LD_LIBRARY_PATH for it.
constexpr const char* kPassedThrough[] = {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "LD_LIBRARY_PATH"};

std::vector<char*> pointers(std::vector<std::string>& items) {
    std::vector<char*> out;
    for (auto& s : items) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// Runs `true` in the sandbox that `candidate` describes: whether that mode starts here.
bool starts(const Sandbox& candidate) {
    const Confinement c;
    auto argv = candidate.command({"/usr/bin/true"}, c);
    auto env = candidate.environment();
    auto args = pointers(argv), envp = pointers(env);
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
        const int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
            ::dup2(null, 0);
            ::dup2(null, 1);
            ::dup2(null, 2);
        }
        if (candidate.enter(c)) ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    const auto start = std::chrono::steady_clock::now();
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > kProbeTimeoutS) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

std::string find_on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        const fs::path candidate = fs::path(dirs.substr(start, end - start)) / program;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
        start = end + 1;
    }
    return "";
}

Sandbox Sandbox::open(const std::string& spec) {
    Sandbox s = open_mode(spec);
    const ControlGroups& groups = ControlGroups::here();
    s.grouped_ = groups.available();
    s.description_ += "; " + groups.description();
    return s;
}

Sandbox Sandbox::open_mode(const std::string& spec) {
    const bool root = ::geteuid() == 0;
    Sandbox none;
    none.drop_user_ = root;
    const std::string limits = root ? "kit limits, uid " + std::to_string(kSandboxUid) : "kit limits only";
    if (spec == "off") {
        none.drop_user_ = false;
        none.keep_environment_ = true;
        none.description_ = "not sandboxed: --sandbox off (kit limits only)";
        return none;
    }
    const std::string bwrap = spec == "auto" ? find_on_path("bwrap") : spec;
    if (bwrap.empty() || ::access(bwrap.c_str(), X_OK) != 0) {
        none.description_ = "not sandboxed: no bubblewrap" + (bwrap.empty() ? std::string(" (bwrap) on PATH") : " at " + bwrap) +
                            "; ./labkit setup installs it (" + limits + ")";
        return none;
    }
    Sandbox s;
    s.bwrap_ = bwrap;
    s.mode_ = Mode::bubblewrap;
    s.drop_user_ = root;
    s.description_ = "bubblewrap, uid " + std::to_string(root ? kSandboxUid : ::getuid());
    if (starts(s)) return s;
    if (root) {  // e.g. bwrap unreadable by kSandboxUid: root starts it, the uid changes inside only
        s.mode_ = Mode::bubblewrap_root;
        s.drop_user_ = false;
        s.description_ = "bubblewrap, uid " + std::to_string(kSandboxUid) + " in its user namespace (started by root)";
        if (starts(s)) return s;
    }
    none.description_ = "not sandboxed: " + bwrap + " cannot start here (user namespaces disabled?) (" + limits + ")";
    return none;
}

std::vector<std::string> Sandbox::command(const std::vector<std::string>& argv, const Confinement& c) const {
    if (mode_ == Mode::none) return argv;
    std::vector<std::string> cmd{bwrap_};
    cmd.insert(cmd.end(), std::begin(kIsolation), std::end(kIsolation));
    if (mode_ == Mode::bubblewrap_root)
        cmd.insert(cmd.end(), {"--uid", std::to_string(kSandboxUid), "--gid", std::to_string(kSandboxGid)});
    cmd.insert(cmd.end(), {"--ro-bind", "/usr", "/usr"});
    for (const char* top : kSystemDirs) {
        std::error_code ec;
        if (fs::is_symlink(top, ec))
            cmd.insert(cmd.end(), {"--symlink", fs::read_symlink(top, ec).string(), top});
        else if (fs::is_directory(top, ec))
            cmd.insert(cmd.end(), {"--ro-bind", top, top});
    }
    for (const char* kept : kEtcKept) cmd.insert(cmd.end(), {"--ro-bind-try", kept, kept});
    // Every tmpfs it can write has a size: /tmp and /dev/shm; / and /dev are made read-only last.
    const std::string scratch = std::to_string(kScratchBytes);
    cmd.insert(cmd.end(), std::begin(kFreshSystem), std::end(kFreshSystem));
    cmd.insert(cmd.end(), {"--size", scratch, "--tmpfs", "/dev/shm", "--size", scratch, "--tmpfs", "/tmp"});
    if (c.gpu) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator("/dev", ec))
            if (entry.path().filename().string().rfind("nvidia", 0) == 0)
                cmd.insert(cmd.end(), {"--dev-bind", entry.path().string(), entry.path().string()});
    }
    if (const char* ld = std::getenv("LD_LIBRARY_PATH")) {
        std::string dirs = ld;
        for (std::size_t start = 0; start < dirs.size();) {
            const std::size_t end = std::min(dirs.find(':', start), dirs.size());
            const std::string dir = dirs.substr(start, end - start);
            if (!dir.empty() && dir[0] == '/') cmd.insert(cmd.end(), {"--ro-bind-try", dir, dir});
            start = end + 1;
        }
    }
    for (const auto& p : c.read_only) cmd.insert(cmd.end(), {"--ro-bind", p.string(), p.string()});
    if (!c.writable.empty()) cmd.insert(cmd.end(), {"--bind", c.writable.string(), c.writable.string()});
    cmd.insert(cmd.end(), std::begin(kReadOnlyLast), std::end(kReadOnlyLast));
    cmd.insert(cmd.end(), {"--chdir", c.writable.empty() ? std::string("/tmp") : c.writable.string(), "--"});
    cmd.insert(cmd.end(), argv.begin(), argv.end());
    return cmd;
}

std::vector<std::string> Sandbox::environment() const {
    if (keep_environment_) return {};
    std::vector<std::string> env{"PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8",
                                 "CUDA_CACHE_DISABLE=1"};  // no JIT cache to write: the kit builds SASS
    for (const char* name : kPassedThrough)
        if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
    return env;
}

bool Sandbox::enter(const Confinement& c) const noexcept {
    auto limit = [](int resource, std::uintmax_t value) {
        const rlimit r{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
        return ::setrlimit(resource, &r) == 0;
    };
    bool ok = limit(RLIMIT_CORE, 0);
    if (c.processes > 0 && !grouped_) ok = ok && limit(RLIMIT_NPROC, c.processes);
    if (c.memory_bytes > 0) ok = ok && limit(c.gpu ? RLIMIT_DATA : RLIMIT_AS, c.memory_bytes);
    if (c.file_bytes > 0) ok = ok && limit(RLIMIT_FSIZE, c.file_bytes);
    if (c.cpu_s > 0) ok = ok && limit(RLIMIT_CPU, static_cast<std::uintmax_t>(std::ceil(c.cpu_s)));
    if (ok && drop_user_)
        ok = ::setgroups(0, nullptr) == 0 && ::setgid(kSandboxGid) == 0 && ::setuid(kSandboxUid) == 0;
    return ok;
}

void Sandbox::hand_over(const fs::path& dir) const {
    if (drop_user_ && ::chown(dir.c_str(), kSandboxUid, kSandboxGid) != 0)
        throw std::runtime_error("cannot hand " + dir.string() + " to uid " + std::to_string(kSandboxUid));
}

}  // namespace protocol
