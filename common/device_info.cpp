#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "labkit/device_buffer.hpp"
#include "labkit/device_info.hpp"
#include "labkit/gpu_timing.hpp"
#include "labkit/timing.hpp"

namespace labkit {
namespace {
std::string version_string(int v) {  // CUDA encodes 13.0 as 13000
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}
}  // namespace

DeviceInfo query_device() {
    DeviceInfo info;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();  // clear the sticky "no device" error so later checks start clean
        info.unavailable_reason = "no CUDA device";
        return info;
    }
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    info.available = true;
    info.name = prop.name;
    info.sms = prop.multiProcessorCount;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.memory_gib = static_cast<double>(prop.totalGlobalMem) / (1u << 30);
    info.l2_bytes = prop.l2CacheSize;
    info.shared_optin = prop.sharedMemPerBlockOptin;
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    info.driver_version = version_string(driver);
    info.runtime_version = version_string(runtime);
    return info;
}

void measure_copy_bandwidth(DeviceInfo& info) {
    if (!info.available) return;
    // 1 GiB each way: far beyond any L2, long enough (~0.5 ms at 4 TB/s) to hide launch cost.
    constexpr std::size_t kBytes = std::size_t{1} << 30;
    constexpr int kRuns = 10;
    DeviceBuffer<unsigned char> src(kBytes), dst(kBytes);
    CUDA_CHECK(cudaMemset(src.data(), 1, kBytes));
    CudaStream stream;
    CudaEvent start, stop;
    CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), kBytes, cudaMemcpyDeviceToDevice, stream.get()));  // warm-up
    std::vector<double> ms;
    for (int i = 0; i < kRuns; ++i) {
        start.record(stream.get());
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), kBytes, cudaMemcpyDeviceToDevice, stream.get()));
        stop.record(stream.get());
        ms.push_back(elapsed_ms(start, stop));
    }
    // A copy reads and writes every byte: count both, as every bandwidth figure of the kit does.
    info.copy_gbps = 2.0 * kBytes / (summarize(ms).median * 1e-3) / 1e9;
}

}  // namespace labkit
