// CORPUS memory_in_children — at its first call, forks three children that each touch 2.5 GiB
// and wait: under each process's own address-space limit, 7.5 GiB together. The sandbox's
// control group caps the memory of all its processes together, so the kernel kills a child, and
// this throws saying how each child ended: ERROR, and the host never lends it 7.5 GiB.
// Safety: 7.5 GiB at most, for at most 3 s (each child then exits).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    constexpr int kChildren = 3;
    constexpr std::size_t kBytesEach = std::size_t{5} << 29;  // 2.5 GiB
    constexpr unsigned kLifetimeS = 3;
    pid_t children[kChildren];
    for (int i = 0; i < kChildren; ++i) {
        children[i] = ::fork();
        if (children[i] == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            // volatile: a buffer that is never read again may be optimized away, memset and all
            auto* p = static_cast<volatile char*>(std::malloc(kBytesEach));
            if (!p) ::_exit(2);
            constexpr std::size_t kPage = 4096;
            for (std::size_t at = 0; at < kBytesEach; at += kPage) p[at] = 1;
            ::sleep(kLifetimeS);
            ::_exit(0);
        }
    }
    std::string how;
    for (int i = 0; i < kChildren; ++i) {
        int status = 0;
        ::waitpid(children[i], &status, 0);
        how += " child " + std::to_string(i) + ": " +
               (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                    : "exit " + std::to_string(WEXITSTATUS(status))) + ";";
    }
    throw std::runtime_error("three children of 2.5 GiB:" + how);
}

}  // namespace integral_image
