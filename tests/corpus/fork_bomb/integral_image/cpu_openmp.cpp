// CORPUS fork_bomb — at its first call, forks in a loop until fork() fails (the process limit);
// every child sleeps. The grader must cap the number of processes, end the variant with a
// failing verdict, finish grading, and leave no process behind.
// Safety: a cap of 500 children, and each child dies by SIGALRM after 300 s, so that running
// this entry without a sandbox (as root, where RLIMIT_NPROC does not apply) cannot take the
// machine down.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    constexpr int kSafetyCap = 500;
    constexpr unsigned kChildLifetimeS = 300;
    int forked = 0;
    int why = 0;
    for (; forked < kSafetyCap; ++forked) {
        const pid_t pid = ::fork();
        if (pid < 0) {
            why = errno;
            break;
        }
        if (pid == 0) {
            ::alarm(kChildLifetimeS);
            for (;;) ::pause();
        }
    }
    throw std::runtime_error("forked " + std::to_string(forked) + " processes" +
                             (why ? std::string("; then fork failed: ") + std::strerror(why) : std::string()));
}

}  // namespace integral_image
