// CORPUS endless_progress_lines — never answers, but writes a heartbeat line ("begin 0") into
// every descriptor from 3 to 20 (where the report pipe is) ten times a second. When any line
// counted as progress, this never timed out, and only labkit's wall-clock limit for the whole
// lab ended it. Progress is now a case whose answer came back: the grader's own per-variant
// limit must end it (timeout), without labkit's safety net.
// Safety: it gives up after 20 minutes.
#include <unistd.h>

#include <chrono>
#include <string>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(20);
    const std::string line = "begin\t0\n";
    while (std::chrono::steady_clock::now() < until) {
        for (int fd = 3; fd <= 20; ++fd) [[maybe_unused]] const auto n = ::write(fd, line.data(), line.size());
        ::usleep(100 * 1000);
    }
}

}  // namespace integral_image
