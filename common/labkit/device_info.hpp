// What the results were measured on: the GPU (if any) and the host. Every result file records it.
#pragma once

#include <cstddef>
#include <string>

namespace labkit {

struct DeviceInfo {
    bool available = false;
    std::string unavailable_reason;  // "no CUDA device", "built without CUDA", ...
    std::string name;
    int sms = 0;
    int cc_major = 0, cc_minor = 0;
    double memory_gib = 0;
    int l2_bytes = 0;
    std::size_t shared_optin = 0;  // the most shared memory one block may opt in to (bytes)
    int sm() const { return cc_major * 10 + cc_minor; }  // the compute capability as sm_XY's XY
    std::string driver_version, runtime_version;
    double copy_gbps = 0;  // measured device-to-device copy, bytes read + written per second / 1e9
    double fma_gflops = 0; // measured FP32 fused multiply-add rate, 2 FLOP per FMA, / 1e9
};

struct HostInfo {
    std::string cpu_model;
    int threads = 0;
    std::string date;  // ISO 8601, UTC
};

// Cheap: no measurement. Never throws; a missing device sets available = false and a reason.
DeviceInfo query_device();
// query_device(), asked once per process: what a runner checks a row's or a launch's needs against.
inline const DeviceInfo& device_in_use() {
    static const DeviceInfo device = query_device();
    return device;
}
// Adds copy_gbps: a large cudaMemcpy device-to-device, median of several runs.
void measure_copy_bandwidth(DeviceInfo& info);
// Adds fma_gflops: independent FMA chains on every SM (common/fma_rate.cu).
void measure_fma_rate(DeviceInfo& info);
HostInfo query_host();
// The CPU threads this process may run at once (its affinity; at least 1): the thread sweep's
// top, the reports' "threads", and what the CPU-time checks count a team up to.
int cores();
// The CPU threads of the whole machine: what its load average is measured against.
int machine_cores();

}  // namespace labkit
