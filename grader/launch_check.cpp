// The dry run's eye on kernel launches: on a machine without a GPU, every launch a student's step
// makes is checked against what a GPU of the build's target accepts (labkit/gpu_limits.hpp), so
// that blocks of 2048 threads, a grid taller than 65535 blocks or too much dynamic shared memory
// are an ERROR with the launch's file and line, not "not run (compiled)".
//
// How: every <<<grid, block, bytes, stream>>> compiles to a call of the CUDA runtime's
// __cudaPushCallConfiguration (CUDA 12 and 13 alike), and an opt-in to more shared memory to
// cudaFuncSetAttribute. The runners are linked with `-Wl,--wrap=` for both (grader/meson.build),
// so that the calls the student objects make come here first; this passes each on unchanged
// (a GPU run is not touched) after noting, in a dry run only, what no GPU would start. The CUDA
// check that follows the launch (CUDA_CHECK_LAUNCH) throws the note with its place
// (labkit::note_launch_problem). On a GPU, a launch or an opt-in that asks for more shared memory
// per block than the device in use gives is noted too (labkit::note_device_shortfall): the check
// that fails after it throws NeedsNewerGpu, which the runner reports as skipped, with what the step
// needs and what this GPU allows, instead of CUDA's cudaErrorInvalidValue.
//
// Limits: only launches through <<<>>> (cudaLaunchKernel called directly is not seen) and only
// what the configuration shows: a kernel's static shared memory and registers need the device.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "labkit/cuda_check.hpp"
#include "labkit/device_info.hpp"
#include "labkit/gpu_limits.hpp"

#ifndef LABKIT_GPU_ARCH
#error "LABKIT_GPU_ARCH (the build's compute capability, e.g. 75) must be defined by the build"
#endif

namespace {
std::size_t g_opted_in = 0;  // the most dynamic shared memory any kernel opted in to

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

unsigned __wrap___cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream) {
    if (labkit::dry_run()) {
        labkit::note_dynamic_shared(shared_bytes);
        const labkit::LaunchShape shape{grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes};
        if (auto problem = labkit::launch_problem(shape, LABKIT_GPU_ARCH, g_opted_in); !problem.empty())
            labkit::note_launch_problem(std::move(problem), labkit::newer_gpus_for(shape, LABKIT_GPU_ARCH, g_opted_in));
    } else {
        check_device_fit(shared_bytes);
    }
    return __real___cudaPushCallConfiguration(grid, block, shared_bytes, stream);
}

cudaError_t __wrap_cudaFuncSetAttribute(const void* func, cudaFuncAttribute attribute, int value) {
    if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize && value > 0) {
        g_opted_in = std::max(g_opted_in, static_cast<std::size_t>(value));
        if (!labkit::dry_run()) check_device_fit(static_cast<std::size_t>(value));
    }
    return __real_cudaFuncSetAttribute(func, attribute, value);
}
}
