// CORPUS kills_or_stops_parent — at its first call stops its parent (the grader) and, when it is
// labkit, its grandparent with SIGSTOP, and sends SIGSTOP to every process it may signal
// (kill(-1)); at its second call it kills its parent with SIGKILL. A stopped labkit once stopped
// the class run for good, and a killed one left a stale class.csv. In the sandbox's PID
// namespace neither the grader nor labkit can be seen. Grading must finish; any verdict.
// Safety: kill(-1, SIGSTOP) only when not root and the pid is small (a fresh PID namespace):
// as root outside a sandbox it would stop every process of the machine.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "integral_image.hpp"

namespace integral_image {
namespace {

int parent_of(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(in, line);
    const auto close = line.rfind(')');
    char state = 0;
    int ppid = 0;
    if (close != std::string::npos) std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid);
    return ppid;
}

bool is_labkit(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    std::string args((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return args.find("labkit") != std::string::npos;
}

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
    static int calls = 0;
    ++calls;
    const int parent = ::getppid();
    if (calls == 1) {
        const int grandparent = parent > 1 ? parent_of(parent) : 0;
        if (grandparent > 1 && is_labkit(grandparent)) ::kill(grandparent, SIGSTOP);
        if (parent > 1) ::kill(parent, SIGSTOP);
        constexpr int kFreshNamespacePids = 1000;
        if (::geteuid() != 0 && ::getpid() < kFreshNamespacePids) ::kill(-1, SIGSTOP);
    } else if (calls == 2 && parent > 1) {
        ::kill(parent, SIGKILL);
    }
    constexpr int kStrip = 64;
    const int strips = (in.width + kStrip - 1) / kStrip;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int y = 0; y < in.height; ++y) {
            std::uint32_t sum = 0;
            for (int x = 0; x < in.width; ++x) out.row(y)[x] = sum += in(x, y);
        }
#pragma omp for schedule(static)
        for (int s = 0; s < strips; ++s) {
            const int x0 = s * kStrip, x1 = x0 + kStrip < in.width ? x0 + kStrip : in.width;
            for (int y = 1; y < in.height; ++y)
                for (int x = x0; x < x1; ++x) out.row(y)[x] += out.row(y - 1)[x];
        }
    }
}

}  // namespace integral_image
