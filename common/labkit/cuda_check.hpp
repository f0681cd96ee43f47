// One way to check CUDA calls: CUDA_CHECK(expr) throws labkit::CudaError with the file, the line,
// the error's name and the expression, so the grader can report it and carry on.
// Launches are checked right after <<<>>> with CUDA_CHECK_LAUNCH(), which catches a bad
// configuration at once; errors raised while the kernel runs surface at the next synchronizing call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "labkit/errors.hpp"

namespace labkit {
// A dry run calls GPU code on a machine without a GPU, only to learn which steps are written
// (the grader's "not run: no CUDA device (compiled)" against "TODO"): CUDA errors are counted
// instead of thrown, so every step of a pipeline is reached. The runner sets it; nothing else does.
void set_dry_run(bool on);
bool dry_run();
// In a dry run, a launch the build's target would not start (grader/launch_check.cpp checks each
// against labkit/gpu_limits.hpp) is noted here with the newer architectures that would start it
// ("" when none would), and the next CUDA check, the launch's own CUDA_CHECK_LAUNCH(), throws it
// with its file and line: NeedsNewerGpu when a newer GPU would start it, else CudaError.
// throw_launch_problem(where) throws one still pending (none: it returns).
void note_launch_problem(std::string problem, std::string newer_gpus);
// On a GPU, a launch or an opt-in that asks for more than this device gives (launch_check.cpp:
// labkit::device_shortfall) is noted here, and the next failing CUDA check throws it as
// NeedsNewerGpu: the step cannot run on this GPU, which is a verdict (skipped), not an error.
void note_device_shortfall(std::string shortfall);
// The most dynamic shared memory per block that a launch asked for since the last reset, in a dry
// run (launch_check.cpp notes each): what the runner's dry run compares with a row's Needs.
void note_dynamic_shared(std::size_t bytes);
std::size_t dynamic_shared_asked();
void reset_dynamic_shared_asked();
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
