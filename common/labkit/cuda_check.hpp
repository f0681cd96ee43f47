// One way to check CUDA calls: CUDA_CHECK(expr) throws labkit::CudaError with the file, the line,
// the error's name and the expression, so the grader can report it and carry on.
// Launches are checked right after <<<>>> with CUDA_CHECK_LAUNCH(), which catches a bad
// configuration at once; errors raised while the kernel runs surface at the next synchronizing call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "labkit/errors.hpp"

namespace labkit {
// A dry run calls GPU code on a machine without a GPU, only to learn which steps are written
// (the grader's "not run: no CUDA device (compiled)" against "TODO"): CUDA errors are counted
// instead of thrown, so every step of a pipeline is reached. The runner sets it; nothing else does.
// as_sm: the compute capability the dry run stands for (`runner dry --as`; 0: the build's target):
// launches are checked against its limits, and code that asks the device for them gets its
// (launch_check.cpp).
void set_dry_run(bool on, int as_sm = 0);
bool dry_run();
int dry_run_sm();
// In a dry run, a launch the build's target would not start (grader/runner/launch_check.cpp checks each
// against labkit/gpu_limits.hpp) is noted here with the newer architectures that would start it
// ("" when none would), and the next CUDA check, the launch's own CUDA_CHECK_LAUNCH(), throws it
// with its file and line: NeedsNewerGpu when a newer GPU would start it, else CudaError.
// throw_launch_problem(where) throws one still pending (none: it returns).
void note_launch_problem(std::string problem, std::string newer_gpus);
// On a GPU, a launch or an opt-in that asks for more than this device gives (launch_check.cpp:
// labkit::device_shortfall) is noted here, and the next failing CUDA check throws it as
// NeedsNewerGpu: the step cannot run on this GPU, which is a verdict (skipped), not an error.
void note_device_shortfall(std::string shortfall);
// A dry run's launches since the last reset, as launch_check.cpp sees them: the block's threads and
// dynamic shared memory at <<<>>>, then the kernel (its host stub's address) when the launch names
// it. What the runner's dry run reports against a row's Needs (tests/resource_fit_selftest.py adds
// each kernel's registers and static shared memory).
struct DryLaunch {
    unsigned threads = 0;
    std::size_t shared_bytes = 0;
    const void* kernel = nullptr;  // null until named (a launch the wraps did not see named)
    std::size_t opted_in = 0;      // the dynamic shared memory the code opted this kernel in to (0: none)
};
void note_dry_launch(unsigned threads, std::size_t shared_bytes);
void name_dry_launch(const void* kernel, std::size_t opted_in);  // the kernel of the launch noted last
const std::vector<DryLaunch>& dry_launches();
std::size_t dynamic_shared_asked();  // the most any of them asked
void reset_dry_launches();
void throw_launch_problem(const std::string& where);
namespace detail {
// Throws labkit::CudaError (NeedsNewerGpu for a noted shortfall), except in a dry run.
void on_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
}  // namespace detail
}  // namespace labkit

#define CUDA_CHECK(expr)                                                             \
    do {                                                                             \
        const cudaError_t labkit_err_ = (expr);                                      \
        if (labkit_err_ != cudaSuccess)                                              \
            ::labkit::detail::on_cuda_error(labkit_err_, #expr, __FILE__, __LINE__); \
    } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
