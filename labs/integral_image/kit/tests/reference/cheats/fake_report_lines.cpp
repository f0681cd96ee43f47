// CHEAT, on purpose: cpu_openmp that writes "every case is done and passed" lines into every
// file descriptor it inherited, then leaves with _exit(0) before answering anything. When the
// student's process reported its own verdicts, this passed. Now the grader judges only answer
// files it reads itself, and an exit with cases unanswered is an ERROR: it must not pass.
// Replaces cpu_openmp.cpp.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    constexpr int kDescriptors = 64;
    constexpr int kCases = 100;
    for (int fd = 0; fd < kDescriptors; ++fd) {
        for (int i = 0; i < kCases; ++i) {
            const std::string lines = "done\t" + std::to_string(i) + "\t\nresult\tcase " + std::to_string(i) +
                                      "\tpass\t\t\n";
            [[maybe_unused]] const auto n = ::write(fd, lines.data(), lines.size());
        }
    }
    ::_exit(0);
}

}  // namespace integral_image
