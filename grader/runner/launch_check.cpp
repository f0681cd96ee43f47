// The dry run's eye on kernel launches: on a machine without a GPU, every launch a student's step
// makes is checked against what a GPU of the build's target accepts (labkit/gpu_limits.hpp), so
// that blocks of 2048 threads, a grid taller than 65535 blocks or too much dynamic shared memory
// are an ERROR with the launch's file and line, not "not run (compiled)".
//
// How: every <<<grid, block, bytes, stream>>> compiles to a call of the CUDA runtime's
// __cudaPushCallConfiguration, then, in the kernel's host stub, __cudaGetKernel (once, for the
// kernel's handle) and __cudaLaunchKernel (CUDA 12.4 and 13 alike; crt/host_runtime.h). An opt-in
// to more shared memory is a call of cudaFuncSetAttribute. The runners are linked with
// `-Wl,--wrap=` for these and for cudaDeviceGetAttribute (grader/meson.build), so that the calls
// the student objects make come here first; on a GPU each is passed on unchanged after the check
// below. In a dry run:
// - each launch is noted (labkit::note_dry_launch), and what no GPU of the target would start is
//   thrown by the CUDA check that follows it (CUDA_CHECK_LAUNCH) with its place
//   (labkit::note_launch_problem);
// - the launch is named by its kernel (the stub's address: labkit::name_dry_launch), for the
//   resource-fit test, which adds the kernel's registers and static shared memory. Without a GPU
//   __cudaGetKernel fails and leaves the handle null; the handle is then the stub's address, which
//   only a dry run's __cudaLaunchKernel sees (and answers as a GPU-less runtime would);
// - a dry run stands for one GPU: the build's target (its oldest, for a build of several), or the
//   one `runner dry --as XY` names. Launches are checked against its limits, and code that asks the
//   device for them (cudaDeviceGetAttribute: the compute capability, the shared memory a block may
//   have, the threads a block may have, the warp's width) gets its, so that code that adapts to
//   the GPU takes the path it would take there.
// On a GPU, a launch or an opt-in that asks for more shared memory per block than the device in use
// gives is noted too (labkit::note_device_shortfall): the check that fails after it throws
// NeedsNewerGpu, which the runner reports as skipped, with what the step needs and what this GPU
// allows, instead of CUDA's cudaErrorInvalidValue.
//
// Limits: only launches through <<<>>> (cudaLaunchKernel called directly, or nvcc's legacy launch,
// is not seen or not named) and only what the configuration shows: a kernel's static shared memory
// and registers are in its cubin (tests/resource_fit_selftest.py reads them).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <utility>

#include "labkit/cuda_check.hpp"
#include "labkit/device_info.hpp"
#include "labkit/gpu_limits.hpp"
#include "labkit/launch.hpp"

#ifndef LABKIT_GPU_ARCH
#error "LABKIT_GPU_ARCH (the build's compute capability, e.g. 75) must be defined by the build"
#endif

namespace {
std::size_t g_opted_in = 0;  // the most dynamic shared memory any kernel opted in to
// A dry run's kernel handles: the stub each names, and whether the handle is the stub's address
// (the runtime gave none), which only this file may see.
struct Handle {
    const void* stub;
    bool made_here;
};
std::unordered_map<const void*, Handle> g_handles;
std::unordered_map<const void*, std::size_t> g_opted_in_by_stub;  // a dry run's opt-ins, per kernel

// The compute capability whose limits a dry run's launches are checked against.
int dry_sm() { return labkit::dry_run_sm() != 0 ? labkit::dry_run_sm() : LABKIT_GPU_ARCH; }

// What a dry run answers for the device's attributes that are its architecture's limits;
// false for any other attribute (asked of the runtime, which fails without a GPU).
bool pretend_attribute(cudaDeviceAttr attribute, int sm, int& value) {
    constexpr int kCcDigits = 10;
    switch (attribute) {
        case cudaDevAttrComputeCapabilityMajor: value = sm / kCcDigits; return true;
        case cudaDevAttrComputeCapabilityMinor: value = sm % kCcDigits; return true;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin:
            value = static_cast<int>(labkit::arch_limits(sm).max_shared_optin);
            return true;
        case cudaDevAttrMaxSharedMemoryPerBlock: value = static_cast<int>(labkit::kDefaultDynamicSharedBytes); return true;
        case cudaDevAttrMaxThreadsPerBlock: value = labkit::kMaxThreadsPerBlock; return true;
        case cudaDevAttrWarpSize: value = labkit::kWarpSize; return true;
        default: return false;
    }
}

// On a GPU: a note of what a launch or an opt-in of shared_bytes asks beyond what the device in use
// gives a block, which the failing check after it throws as a skip.
void check_device_fit(std::size_t shared_bytes) {
    const labkit::DeviceInfo& device = labkit::device_in_use();
    if (!device.available) return;  // no device to ask: the launch's own error says why
    if (auto shortfall = labkit::device_shortfall(shared_bytes, device.sm(), device.shared_optin); !shortfall.empty())
        labkit::note_device_shortfall(std::move(shortfall));
}
}  // namespace

extern "C" {
unsigned __real___cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream);
cudaError_t __real_cudaFuncSetAttribute(const void* func, cudaFuncAttribute attribute, int value);
cudaError_t __real___cudaGetKernel(cudaKernel_t* kernel, const void* stub);
cudaError_t __real___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                                      cudaStream_t stream);
cudaError_t __real_cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device);

unsigned __wrap___cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream) {
    if (labkit::dry_run()) {
        labkit::note_dry_launch(block.x * block.y * block.z, shared_bytes);
        const labkit::LaunchShape shape{grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes};
        if (auto problem = labkit::launch_problem(shape, dry_sm(), g_opted_in); !problem.empty())
            labkit::note_launch_problem(std::move(problem), labkit::newer_gpus_for(shape, dry_sm(), g_opted_in));
    } else {
        check_device_fit(shared_bytes);
    }
    return __real___cudaPushCallConfiguration(grid, block, shared_bytes, stream);
}

cudaError_t __wrap_cudaFuncSetAttribute(const void* func, cudaFuncAttribute attribute, int value) {
    if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize && value > 0) {
        g_opted_in = std::max(g_opted_in, static_cast<std::size_t>(value));
        if (labkit::dry_run()) g_opted_in_by_stub[func] = static_cast<std::size_t>(value);
        if (!labkit::dry_run()) check_device_fit(static_cast<std::size_t>(value));
    }
    return __real_cudaFuncSetAttribute(func, attribute, value);
}

cudaError_t __wrap___cudaGetKernel(cudaKernel_t* kernel, const void* stub) {
    const cudaError_t err = __real___cudaGetKernel(kernel, stub);
    if (!labkit::dry_run()) return err;
    const bool made_here = err != cudaSuccess || *kernel == nullptr;
    if (made_here) *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(stub));
    g_handles[*kernel] = {stub, made_here};
    return err;
}

cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                                      cudaStream_t stream) {
    if (labkit::dry_run()) {
        if (const auto h = g_handles.find(kernel); h != g_handles.end()) {
            const auto opted_in = g_opted_in_by_stub.find(h->second.stub);
            labkit::name_dry_launch(h->second.stub, opted_in == g_opted_in_by_stub.end() ? 0 : opted_in->second);
            if (h->second.made_here) return cudaErrorNoDevice;  // no runtime handle: what a GPU-less runtime says
        }
    }
    return __real___cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream);
}

cudaError_t __wrap_cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
    if (labkit::dry_run() && pretend_attribute(attribute, dry_sm(), *value))
        return cudaSuccess;
    return __real_cudaDeviceGetAttribute(value, attribute, device);
}
}
