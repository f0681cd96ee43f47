// What a GPU accepts of a kernel launch, per architecture, written once: the dry run on a machine
// without a GPU checks every launch of a student's step against the build's target (grader's
// launch_check.cpp), and a step that asks for what no GPU of that target gives is an ERROR there
// instead of "not run". This header needs no CUDA headers.
//
// Source: the CUDA C++ Programming Guide, "Compute Capabilities" (technical specifications per
// compute capability): 1024 threads per block, block dimensions 1024 x 1024 x 64, grid dimensions
// 2^31 - 1 x 65535 x 65535, 48 KB of dynamic shared memory per block unless the kernel opts in
// (cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)), and the most
// a block may opt in to, which the architecture decides.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace labkit {

inline constexpr int kOldestCc = 75;  // the oldest GPU the kit builds for (tools/gpu_arch.py reads it, as labkit-facts exports it)
inline constexpr int kMaxThreadsPerBlock = 1024;
inline constexpr int kMaxBlockX = 1024, kMaxBlockY = 1024, kMaxBlockZ = 64;
inline constexpr long long kMaxGridX = 2147483647LL;
inline constexpr int kMaxGridYZ = 65535;  // launch.hpp names it kMaxGridY for the kernels that loop over rows
inline constexpr std::size_t kDefaultDynamicSharedBytes = 48 * 1024;  // a block's static + dynamic, without opting in
// Registers: a block holds at most 64 K of them, given to each warp in units of 256 (every compute
// capability from 5.0; the guide's "Maximum number of 32-bit registers per thread block" and
// "Register allocation unit size"). tests/resource_fit_selftest.py reads both (labkit-facts exports them).
inline constexpr int kMaxRegistersPerBlock = 64 * 1024;
inline constexpr int kRegisterAllocationUnit = 256;

// The shared memory one block may opt in to (cudaDevAttrMaxSharedMemoryPerBlockOptin), per
// compute capability.
struct ArchLimits {
    int sm;                         // 75 for sm_75
    std::size_t max_shared_optin;   // bytes
};
inline constexpr ArchLimits kArchLimits[] = {
    {75, 64 * 1024},   // Turing (T4, RTX 20)
    {80, 163 * 1024},  // A100
    {86, 99 * 1024},   // RTX 30, A40
    {87, 163 * 1024},  // Jetson Orin
    {89, 99 * 1024},   // RTX 40, L4, L40
    {90, 227 * 1024},  // H100, H200
    {100, 227 * 1024}, // B200
    {120, 99 * 1024},  // RTX 50
};

// The limits of compute capability sm: its own row, else the nearest older one listed.
constexpr const ArchLimits& arch_limits(int sm) {
    const ArchLimits* best = &kArchLimits[0];
    for (const auto& a : kArchLimits)
        if (a.sm <= sm) best = &a;
    return *best;
}

// One launch's configuration, as <<<grid, block, shared_bytes>>> gives it.
struct LaunchShape {
    long long grid_x = 1, grid_y = 1, grid_z = 1;
    long long block_x = 1, block_y = 1, block_z = 1;
    std::size_t shared_bytes = 0;
};

// Why no GPU of compute capability sm would start this launch ("" when it would). opted_in: the
// most dynamic shared memory the code asked cudaFuncSetAttribute for (0: never).
std::string launch_problem(const LaunchShape& l, int sm, std::size_t opted_in);

// What a launch or an opt-in of shared_bytes of dynamic shared memory per block needs, against
// what the GPU in use allows (cudaDevAttrMaxSharedMemoryPerBlockOptin): "needs 160 KB of shared
// memory per block; this GPU (sm_86) allows 99 KB", or "" when it fits.
std::string device_shortfall(std::size_t shared_bytes, int sm, std::size_t device_max_optin);

// Why a GPU of compute capability sm whose blocks may opt in to device_max_optin bytes cannot run
// a step that needs compute capability min_cc (for `feature`, "" for none) and shared_bytes of
// dynamic shared memory per block ("" when it can): "needs compute capability 8.0 or newer
// (cooperative launch); this GPU (sm_75) has 7.5", or device_shortfall's words.
std::string unmet_needs(int min_cc, std::string_view feature, std::size_t shared_bytes, int sm,
                        std::size_t device_max_optin);

// The compute capabilities listed above, newer than sm, that would start a launch sm refuses
// ("sm_80, sm_90"; "" when none would: the launch is wrong for every GPU).
std::string newer_gpus_for(const LaunchShape& l, int sm, std::size_t opted_in);

}  // namespace labkit
