// A CPU-only build: there is no GPU to ask about.
#include "labkit/device_info.hpp"

namespace labkit {

DeviceInfo query_device() {
    DeviceInfo info;
    info.unavailable_reason = "built without CUDA";
    return info;
}

void measure_copy_bandwidth(DeviceInfo&) {}
void measure_fma_rate(DeviceInfo&) {}

}  // namespace labkit
