// CORPUS holds_every_process_slot — at its first call in each process, forks until fork() fails
// (its process limit), holds those processes for kHoldS seconds, then lets them go and answers
// correctly. Where the process limit was per uid (every sandbox runs as uid 65534), classmates
// graded beside it (grade-all --jobs 2) could not start a thread meanwhile and scored 0. Each
// sandbox now has a control group of its own: this entry passes, and so do its classmates
// (tests/grade_all_selftest.py grades it beside them).
// Safety: at most 1500 children, each ended by SIGALRM after 60 s and by its parent's death.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {
namespace {

void hold_every_slot() {
    static bool done = false;
    if (done) return;
    done = true;
    constexpr int kSafetyCap = 1500;
    constexpr unsigned kChildLifetimeS = 60;
    constexpr unsigned kHoldS = 12;
    std::vector<pid_t> children;
    while (static_cast<int>(children.size()) < kSafetyCap) {
        const pid_t pid = ::fork();
        if (pid < 0) break;
        if (pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            ::alarm(kChildLifetimeS);
            for (;;) ::pause();
        }
        children.push_back(pid);
    }
    ::sleep(kHoldS);
    for (const pid_t pid : children) ::kill(pid, SIGKILL);
    for (const pid_t pid : children) ::waitpid(pid, nullptr, 0);
}

}  // namespace

void cpu_openmp(Input in, Output out, int) {
    hold_every_slot();
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t row = 0;
        for (int x = 0; x < in.width; ++x) {
            row += in.row(y)[x];
            out.row(y)[x] = row + (y > 0 ? out.row(y - 1)[x] : 0u);
        }
    }
}

}  // namespace integral_image
