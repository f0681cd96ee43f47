// How student code runs: the one place that decides it. Every runner call (list, check, time,
// dry) goes through a Sandbox; kit programs (the device probe) do not.
//
// With bubblewrap (https://github.com/containers/bubblewrap), a runner gets its own PID, mount,
// network, IPC and user namespaces: it sees /usr, the runner program and the case files
// read-only, one writable folder (its answers), a small private /tmp, the GPU device nodes,
// and nothing else of the machine (not the kit, solutions/, results/, other submissions, /etc,
// the network). When the sandbox ends, the PID namespace ends, and every process the student
// started ends with it. As root, the runner runs as an unprivileged uid (kSandboxUid), so the
// process limit counts, and no file of the machine's is its own.
//
// Whatever the mode, the kit's resource limits apply (setrlimit before exec): processes,
// memory, file size, CPU time, no core files. Where bubblewrap cannot start (not installed, no
// user namespaces), grading still runs with those limits, as kSandboxUid when root, with a clean
// environment, and description() says "not sandboxed". `--sandbox off` is for tools that must
// follow the runner (compute-sanitizer): the limits only, the caller's user and environment.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace protocol {

inline constexpr uid_t kSandboxUid = 65534;  // "nobody" on Debian and Ubuntu (labkit-facts exports it: labkit's sandbox.py reads it too)
inline constexpr gid_t kSandboxGid = 65534;
// The system every sandbox sees read-only besides /usr, written once for the grader's sandbox
// (sandbox.cpp) and labkit's compile sandbox (cli/labkit/sandbox.py, through labkit-facts):
// the top-level folders that a merged /usr links into it (Debian 12, Ubuntu 24.04; folders of
// their own on an older system), and of /etc only what the tools need: the alternatives behind
// /usr/bin/c++ and the chosen BLAS (numpy of the Python track loads it), and the dynamic loader's
// cache (Debian's libraries sit in multiarch folders the loader does not search by itself).
inline constexpr const char* kSystemDirs[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
inline constexpr const char* kEtcKept[] = {"/etc/alternatives", "/etc/ld.so.cache"};
// The bwrap options every sandbox is made of, for both as well: new namespaces of every kind
// (no network, its own PIDs and users), ended with its parent, in a session of its own (no typing
// into the caller's terminal); a fresh /proc and /dev; and last, once everything is mounted, /
// and /dev read-only (bwrap's own tmpfs, as large as half the machine's memory, is no place to
// write). The /tmp and /dev/shm of each side have sizes of their own.
inline constexpr const char* kIsolation[] = {"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"};
inline constexpr const char* kFreshSystem[] = {"--proc", "/proc", "--dev", "/dev"};
inline constexpr const char* kReadOnlyLast[] = {"--remount-ro", "/dev", "--remount-ro", "/"};

// What the kit allows one runner call. Never derived from anything the runner prints.
struct Confinement {
    std::vector<std::filesystem::path> read_only;  // visible inside, read-only
    std::filesystem::path writable;                // the one writable folder (answers); may be empty
    bool gpu = false;  // GPU device nodes bound in; memory capped by data size, not address space
                       // (CUDA reserves far more address space than it uses)
    std::uintmax_t memory_bytes = 0;  // per process (address space, or data for GPU); 0: no limit
    std::uintmax_t group_memory_bytes = 0;  // the whole sandbox, tmpfs files included (its control group); 0: none
    std::uintmax_t file_bytes = 0;    // the largest file it may write; 0: no limit
    unsigned processes = 0;           // processes and threads: of the sandbox's control group where there is
                                      // one, else of the sandbox user; 0: no limit
    double cpu_s = 0;                 // CPU seconds, all threads together; 0: no limit
};

// The program's path in one of PATH's folders, "" when none has it.
std::string find_on_path(const std::string& program);

class Sandbox {
public:
    enum class Mode {
        bubblewrap,       // bwrap started as kSandboxUid (root) or as the caller: the full sandbox
        bubblewrap_root,  // bwrap started by root, uid kSandboxUid inside its user namespace only
        none,             // limits only (and kSandboxUid when root)
    };

    // spec: "auto" (bwrap from PATH), "off", or the path of a bwrap program. Tries the modes
    // in order of strength and keeps the first that starts.
    static Sandbox open(const std::string& spec);

    Mode mode() const { return mode_; }
    bool confined() const { return mode_ != Mode::none; }
    // "bubblewrap, uid 65534" or "not sandboxed: <why>; ..." for every report.
    const std::string& description() const { return description_; }

    // The program and arguments to exec for argv under c, and its environment (a clean one:
    // nothing of the grader's environment but what CUDA needs; empty: the caller's).
    std::vector<std::string> command(const std::vector<std::string>& argv, const Confinement& c) const;
    std::vector<std::string> environment() const;
    // In the forked child, before exec: the limits, then the unprivileged user. Only
    // async-signal-safe calls; false when a step failed (the child must not go on). Where each
    // call has a control group (grouped()), it counts the processes, so the per-uid count (shared
    // by every sandbox) is not set.
    bool enter(const Confinement& c) const noexcept;
    // Whether each call gets a control group of its own (grader/grader/cgroup.hpp).
    bool grouped() const { return grouped_; }
    // Makes a folder the sandbox user's (its writable folder), when it runs as another uid.
    void hand_over(const std::filesystem::path& dir) const;
    // Whether files it must read need to be readable by others (it runs as another uid).
    bool drops_user() const { return drop_user_; }

private:
    static Sandbox open_mode(const std::string& spec);  // open() without the control groups
    Mode mode_ = Mode::none;
    std::string bwrap_, description_;
    bool drop_user_ = false;  // root: become kSandboxUid before exec
    bool keep_environment_ = false;  // --sandbox off: the caller's environment (a sanitizer's hooks)
    bool grouped_ = false;           // control groups are available here
};

}  // namespace protocol
