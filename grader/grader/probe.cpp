// labkit-probe: what GPU this machine has, for the grader's reports. A kit program of its own,
// so that the grader itself never touches CUDA and no student code answers for the device.
//   labkit-probe [--bandwidth]     (--bandwidth: also measure the copy bandwidth and the FMA rate; reports "device" lines on the report pipe, fd 3)
#include <cstring>
#include <exception>
#include <string>

#include "labkit/device_info.hpp"
#include "labkit/table.hpp"
#include "report_pipe.hpp"

int main(int argc, char** argv) {
    const bool bandwidth = argc > 1 && std::strcmp(argv[1], "--bandwidth") == 0;
    protocol::Reporter report(protocol::kReportFd);
    auto info = labkit::query_device();
    try {
        if (info.available && bandwidth) {
            labkit::measure_copy_bandwidth(info);
            labkit::measure_fma_rate(info);
        }
    } catch (const std::exception& e) {
        info.available = false;
        info.unavailable_reason = std::string("the device failed a copy test: ") + e.what();
    }
    constexpr int kDecimals = 1;
    report.send("device", "available\t" + std::string(info.available ? "1" : "0"));
    report.send("device", "reason\t" + info.unavailable_reason);
    report.send("device", "name\t" + info.name);
    report.send("device", "sms\t" + std::to_string(info.sms));
    report.send("device", "cc_major\t" + std::to_string(info.cc_major));
    report.send("device", "cc_minor\t" + std::to_string(info.cc_minor));
    report.send("device", "memory_gib\t" + labkit::format_fixed(info.memory_gib, kDecimals));
    report.send("device", "driver\t" + info.driver_version);
    report.send("device", "runtime\t" + info.runtime_version);
    report.send("device", "copy_gbps\t" + labkit::format_fixed(info.copy_gbps, kDecimals));
    report.send("device", "fma_gflops\t" + labkit::format_fixed(info.fma_gflops, kDecimals));
    return 0;
}
