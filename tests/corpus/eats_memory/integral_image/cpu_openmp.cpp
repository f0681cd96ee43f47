// CORPUS eats_memory — allocates and touches 64 GiB, 256 MiB at a time. The grader must limit
// the memory a submission can take: the allocation fails (std::bad_alloc: ERROR), the process is
// killed (CRASH), or, where the limit is above what the machine fills in the variant's time
// limit, the grader's clock ends it (TIMEOUT).
// Safety: when it finds no limit at all (no RLIMIT_AS/RLIMIT_DATA, no cgroup memory.max) it
// stops at 2 GiB, and always when the machine has less than 4 GiB available; it then returns
// without writing its output, so that a grader without a memory limit shows up as a FAIL here
// instead of an out-of-memory machine.
#include <sys/resource.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

bool rlimit_set(int resource) {
    rlimit r{};
    return ::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY;
}

bool cgroup_limit_set() {
    std::ifstream cgroup("/proc/self/cgroup");
    for (std::string line; std::getline(cgroup, line);) {
        const auto colon = line.rfind(':');
        if (colon == std::string::npos) continue;
        std::ifstream max("/sys/fs/cgroup" + line.substr(colon + 1) + "/memory.max");
        std::string value;
        if (max >> value && value != "max") return true;
    }
    return false;
}

std::size_t available_bytes() {
    std::ifstream info("/proc/meminfo");
    for (std::string key; info >> key;) {
        std::size_t kib = 0;
        info >> kib;
        if (key == "MemAvailable:") return kib * 1024;
        info.ignore(1 << 10, '\n');
    }
    return 0;
}

}  // namespace

void cpu_openmp(Input, Output, int) {
    const bool limited = rlimit_set(RLIMIT_AS) || rlimit_set(RLIMIT_DATA) || cgroup_limit_set();
    const std::size_t goal = limited ? 64 * kGiB : 2 * kGiB;
    constexpr std::size_t kChunk = 256 * kMiB;
    std::vector<std::unique_ptr<char[]>> hoard;
    for (std::size_t total = 0; total < goal; total += kChunk) {
        if (available_bytes() < 4 * kGiB) break;
        hoard.emplace_back(new char[kChunk]);  // std::bad_alloc once a limit is reached
        std::memset(hoard.back().get(), 1, kChunk);
    }
    // No limit stopped it: the output stays unwritten (FAIL), see the safety note above.
}

}  // namespace integral_image
