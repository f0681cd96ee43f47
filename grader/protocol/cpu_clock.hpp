// The CPU time of every thread of this process, up to date when read: what a CPU call's threads
// cost, against its wall time (grader/protocol/cpu_timing.hpp).
//
// Why not getrusage or CLOCK_PROCESS_CPUTIME_ID alone: they add another thread's time only as of
// its last tick or switch, so each thread still running when they are read (an OpenMP team spins
// a while after its region) is up to a tick behind (4 ms at HZ=250). One call of a few ms then
// read anywhere from 1 to 3 threads busy for an honest team of 2 (measured on a 2-core machine).
// Under a CPU-time limit (the sandbox's RLIMIT_CPU arms the process's CPU timer) even the
// calling thread's own time is read as of the last tick: a serial call of 0.7 ms read 0 or 4 ms.
// A thread's own clock, read from any thread of the process, is brought up to date by the kernel
// (task_sched_runtime). So: each live thread's own clock, plus the time of the threads that have
// ended, which only the process clock holds: the process clock less what it holds of the live
// threads (each one's /proc/self/task/<tid>/schedstat, the same not-yet-updated sum), read twice
// around it so that no tick or switch fell in between.
//
// Limits: Linux only (procfs and the kernel's thread-clock ids); where procfs cannot be read the
// process clock alone is returned. Threads are listed once per reading: a thread that starts and
// ends between two readings is counted through the process clock, as an ended one.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

namespace protocol {

namespace detail {

// The first two fields of /proc/self/task/<tid>/schedstat, in ns: the thread's time on a core as
// the process clock holds it, and its time waiting on a run queue.
inline bool read_schedstat(pid_t tid, long long& running, long long* waiting = nullptr) {
    char path[64], text[128];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", static_cast<int>(tid));
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (n <= 0) return false;
    text[n] = '\0';
    long long waited = 0;
    if (std::sscanf(text, "%lld %lld", &running, &waited) < 1) return false;
    if (waiting) *waiting = waited;
    return true;
}

// The thread ids of this process but `except` (-1: all of them), from /proc/self/task.
inline bool list_threads(pid_t except, std::vector<pid_t>& out) {
    DIR* dir = ::opendir("/proc/self/task");
    if (!dir) return false;
    while (const dirent* e = ::readdir(dir)) {
        const pid_t tid = static_cast<pid_t>(std::atol(e->d_name));
        if (tid > 0 && tid != except) out.push_back(tid);
    }
    ::closedir(dir);
    return true;
}

// A thread's own CPU clock, added to ns: the kernel's id for a thread's scheduler clock (what
// glibc's pthread_getcpuclockid builds: ~tid << 3, CPUCLOCK_SCHED 2, CPUCLOCK_PERTHREAD_MASK 4).
inline bool add_thread_clock(pid_t tid, double& ns) {
    constexpr clockid_t kSched = 2, kPerThread = 4;
    const clockid_t clock = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | kSched | kPerThread);
    timespec t{};
    if (::clock_gettime(clock, &t) != 0) return false;  // the thread ended meanwhile
    constexpr double kNsPerS = 1e9;
    ns += static_cast<double>(t.tv_sec) * kNsPerS + static_cast<double>(t.tv_nsec);
    return true;
}

}  // namespace detail

class ProcessCpuClock {
public:
    // CPU time (user + system) of every thread this process has run, in ms.
    static double now_ms() {
        constexpr int kTries = 8;  // a tick or switch among the live threads during one reading: read again
        const pid_t self = static_cast<pid_t>(::syscall(SYS_gettid));
        for (int attempt = 0; attempt < kTries; ++attempt) {
            std::vector<pid_t> others;
            if (!detail::list_threads(self, others)) break;
            // Others' own clocks first, right after the call: an ended team's spin is counted least.
            double live_ns = 0;
            bool ok = true;
            for (const pid_t tid : others) ok = ok && detail::add_thread_clock(tid, live_ns);
            std::vector<long long> before(others.size()), after(others.size());
            for (std::size_t i = 0; ok && i < others.size(); ++i) ok = detail::read_schedstat(others[i], before[i]);
            // This thread's own clock brings its sum (and a CPU timer's, when one is armed) up to
            // date; the process clock then holds it as the schedstat read after it does.
            const double self_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            const double process_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
            long long self_held_ns = 0, self_held_again = 0;
            ok = ok && detail::read_schedstat(self, self_held_ns);
            for (std::size_t i = 0; ok && i < others.size(); ++i) ok = detail::read_schedstat(others[i], after[i]);
            ok = ok && detail::read_schedstat(self, self_held_again);
            if (!ok || before != after || self_held_ns != self_held_again) continue;
            double held_ns = static_cast<double>(self_held_ns);
            for (const long long ns : after) held_ns += static_cast<double>(ns);
            const double ended_ns = process_ns - held_ns;
            return (ended_ns + live_ns + self_ns) * kMsPerNs;
        }
        return clock_ns(CLOCK_PROCESS_CPUTIME_ID) * kMsPerNs;  // no procfs: the coarser clock
    }

private:
    static constexpr double kMsPerNs = 1e-6;

    static double clock_ns(clockid_t clock) {
        timespec t{};
        ::clock_gettime(clock, &t);
        constexpr double kNsPerS = 1e9;
        return static_cast<double>(t.tv_sec) * kNsPerS + static_cast<double>(t.tv_nsec);
    }
};

// How many threads of this process wanted a core during one call: each thread's time running
// (its own clock, up to date) or waiting on a run queue (the second field of its schedstat),
// between a snapshot before the call and one after. Unlike CPU time it does not shrink on a
// loaded machine: a team of 4 given one thread, on one core, kept 1.0 busy and 2.6 wanting.
// A waiting thread's wait is added to schedstat only once it runs, so a wait that began before
// the call can be counted in it: each thread counts for at most the call's wall time, and an
// honest team of t then reads at most t. Threads that start and end within the call are not
// seen; where procfs or schedstat is missing a thread counts its running time only.
class ThreadDemand {
public:
    ThreadDemand() { read(start_); }

    // Thread-ms of running or waiting since this object was made, each live thread's capped at
    // window_ms (the call's wall time).
    double elapsed_ms(double window_ms) const {
        std::map<pid_t, double> now;
        read(now);
        constexpr double kNsPerMs = 1e6;
        const double cap_ns = window_ms * kNsPerMs;
        double ns = 0;
        for (const auto& [tid, total] : now) {
            const auto was = start_.find(tid);
            ns += std::min(cap_ns, total - (was == start_.end() ? 0 : was->second));
        }
        return ns / kNsPerMs;
    }

private:
    std::map<pid_t, double> start_;  // per thread: ns running (own clock) + ns waited (schedstat)

    static void read(std::map<pid_t, double>& out) {
        std::vector<pid_t> threads;
        detail::list_threads(-1, threads);
        for (const pid_t tid : threads) {
            double ns = 0;
            if (!detail::add_thread_clock(tid, ns)) continue;  // ended meanwhile
            long long running = 0, waiting = 0;
            if (detail::read_schedstat(tid, running, &waiting)) ns += static_cast<double>(waiting);
            out[tid] = ns;
        }
    }
};

}  // namespace protocol
