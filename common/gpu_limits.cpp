#include "labkit/gpu_limits.hpp"

namespace labkit {

namespace {
std::string dims(long long x, long long y, long long z) {
    return std::to_string(x) + " x " + std::to_string(y) + " x " + std::to_string(z);
}
std::string kib(std::size_t bytes) {
    constexpr std::size_t kKib = 1024;
    return bytes % kKib ? std::to_string(bytes) + " bytes" : std::to_string(bytes / kKib) + " KB";
}
}  // namespace

std::string launch_problem(const LaunchShape& l, int sm, std::size_t opted_in) {
    const std::string grid = "a grid of " + dims(l.grid_x, l.grid_y, l.grid_z) + " blocks";
    const std::string block = "blocks of " + dims(l.block_x, l.block_y, l.block_z) + " threads";
    if (l.grid_x < 1 || l.grid_y < 1 || l.grid_z < 1)
        return grid + ": a launch needs at least one block each way (an empty image must launch nothing)";
    if (l.block_x < 1 || l.block_y < 1 || l.block_z < 1) return block + ": a block needs at least one thread each way";
    const long long threads = l.block_x * l.block_y * l.block_z;
    if (threads > kMaxThreadsPerBlock)
        return block + " (" + std::to_string(threads) + "): no GPU runs more than " +
               std::to_string(kMaxThreadsPerBlock) + " threads per block";
    if (l.block_x > kMaxBlockX || l.block_y > kMaxBlockY || l.block_z > kMaxBlockZ)
        return block + ": no GPU takes blocks over " + dims(kMaxBlockX, kMaxBlockY, kMaxBlockZ);
    if (l.grid_x > kMaxGridX || l.grid_y > kMaxGridYZ || l.grid_z > kMaxGridYZ)
        return grid + ": no GPU takes grids over " + dims(kMaxGridX, kMaxGridYZ, kMaxGridYZ) +
               " blocks (loop over the rest, as labkit::kMaxGridY's comment says)";
    const ArchLimits& arch = arch_limits(sm);
    if (l.shared_bytes > arch.max_shared_optin)
        return kib(l.shared_bytes) + " of dynamic shared memory per block: sm_" + std::to_string(sm) +
               " gives a block at most " + kib(arch.max_shared_optin);
    if (l.shared_bytes > kDefaultDynamicSharedBytes && opted_in < l.shared_bytes)
        return kib(l.shared_bytes) + " of dynamic shared memory per block: over " + kib(kDefaultDynamicSharedBytes) +
               ", a launch needs cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first";
    return "";
}

std::string device_shortfall(std::size_t shared_bytes, int sm, std::size_t device_max_optin) {
    if (shared_bytes <= device_max_optin) return "";
    return "needs " + kib(shared_bytes) + " of shared memory per block; this GPU (sm_" + std::to_string(sm) +
           ") allows " + kib(device_max_optin);
}

std::string unmet_needs(int min_cc, std::string_view feature, std::size_t shared_bytes, int sm,
                        std::size_t device_max_optin) {
    const auto version = [](int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); };
    if (sm < min_cc)
        return "needs compute capability " + version(min_cc) + " or newer" +
               (feature.empty() ? "" : " (" + std::string(feature) + ")") + "; this GPU (sm_" + std::to_string(sm) +
               ") has " + version(sm);
    return device_shortfall(shared_bytes, sm, device_max_optin);
}

std::string newer_gpus_for(const LaunchShape& l, int sm, std::size_t opted_in) {
    std::string names;
    for (const auto& a : kArchLimits)
        if (a.sm > sm && launch_problem(l, a.sm, opted_in).empty()) names += (names.empty() ? "sm_" : ", sm_") + std::to_string(a.sm);
    return names;
}

}  // namespace labkit
