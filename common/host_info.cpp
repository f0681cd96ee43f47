#include <sched.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include "labkit/device_info.hpp"

namespace labkit {

HostInfo query_host() {
    HostInfo info;
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) info.cpu_model = line.substr(line.find_first_not_of(' ', colon + 1));
            break;
        }
    }
    if (info.cpu_model.empty()) info.cpu_model = "unknown CPU";
    info.threads = cores();
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    info.date = date;
    return info;
}

int cores() {
    // The cores this process may run on: a class run pins its gradings to cores of their own
    // (cli/labkit/quiet.py), and a Slurm task gets its allocation, not the node.
    cpu_set_t allowed;
    if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0) return std::max(1, CPU_COUNT(&allowed));
    return machine_cores();
}

int machine_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

}  // namespace labkit
