// Limits that belong to one sandbox, not to a user: a control group per runner call and per
// compile, with its own process count (pids.max) and memory (memory.max, tmpfs pages included).
//
// Why: setrlimit's RLIMIT_NPROC counts every process of a uid, so one submission that holds all
// the slots of uid 65534 starves every classmate graded beside it (--jobs N), and RLIMIT_AS caps
// one process, not the three children it forks. A control group caps what the sandbox holds in
// total, and nothing it does reaches another group.
//
// Both versions are supported, since both are where the kit runs:
//   cgroup v2 (Ubuntu 24.04, the GPU nodes): a folder labkit-<pid> beside the grader's own group
//     (the "no internal processes" rule keeps controllers off a group that holds processes), with
//     pids and memory enabled down to it where an ancestor lacks them;
//   cgroup v1 (Debian 12 here and in CI, hybrid mounts): labkit-<pid> below the grader's group in
//     the pids and the memory hierarchies.
// Creating groups needs write access to the hierarchy: root, or a delegated subtree. Without
// it, or with LABKIT_CGROUPS=off in the environment, available() is false and the description
// says why; callers then keep the per-uid limits and refuse to grade submissions side by side.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace protocol {

struct GroupLimits {
    unsigned processes = 0;         // processes and threads, all together
    std::uintmax_t memory_bytes = 0;  // resident memory, page cache and tmpfs files included
};

// One sandbox's group. The child joins it between fork and exec (join: async-signal-safe);
// the destructor kills whatever is still in it and removes it.
class ControlGroup {
public:
    ControlGroup(std::vector<std::filesystem::path> dirs, int version, GroupLimits limits);
    ~ControlGroup();
    ControlGroup(const ControlGroup&) = delete;
    ControlGroup& operator=(const ControlGroup&) = delete;

    // In the forked child: moves the calling process into the group. Only async-signal-safe
    // calls; false when it could not (the child must not go on).
    bool join() const noexcept;
    // SIGKILL to every process in the group, now (a fork bomb, a daemon left behind).
    void kill_all() const noexcept;
    // Which limit the group ran into, in words ("" when none): a SIGKILL from the OOM killer
    // reads "ran out of memory (its limit: 4096 MiB)" instead of a bare crash.
    std::string limit_hit() const;

private:
    void release() noexcept;  // kill, close, remove: the destructor's work, also for a failed constructor
    std::vector<std::filesystem::path> dirs_;  // v2: one folder; v1: pids' and memory's
    int version_;
    GroupLimits limits_;
    std::vector<int> procs_fds_;  // each folder's cgroup.procs, opened before the fork
};

// What this machine offers, found once per process.
class ControlGroups {
public:
    static const ControlGroups& here();
    bool available() const { return version_ != 0; }
    int version() const { return version_; }
    // "control groups (cgroup v2): per-sandbox limits" or "no control groups: <why>".
    const std::string& description() const { return description_; }
    // A new group for one child, with these limits. Throws std::runtime_error.
    std::unique_ptr<ControlGroup> make(const GroupLimits& limits) const;
    ~ControlGroups();

private:
    ControlGroups() = default;
    void find();
    int version_ = 0;
    std::vector<std::filesystem::path> bases_;  // this process's labkit-<pid> folders
    std::string description_;
};

// Removes what graders that died without cleaning up left behind: the entries named
// <prefix><pid>... in dir whose pid is not alive (its empty control groups, its case files in
// /dev/shm). Entries of a living process are left alone.
void remove_leftovers_of_dead(const std::filesystem::path& dir, const std::string& prefix, bool directories_only_empty);

}  // namespace protocol
