#include "labkit/gpu_timing.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace labkit {

namespace {
bool g_dry_run = false;        // one runner process does one thing: no threads share it
std::string g_launch_problem;  // a dry run's launch that the target would not start, not yet thrown
std::string g_newer_gpus;      // the GPUs that would start it ("" when none would)
std::string g_shortfall;       // on a GPU: what a launch needs that this device does not give
std::size_t g_shared_asked = 0;  // a dry run's most dynamic shared memory per block since the reset
}

void note_dynamic_shared(std::size_t bytes) { g_shared_asked = std::max(g_shared_asked, bytes); }
std::size_t dynamic_shared_asked() { return g_shared_asked; }
void reset_dynamic_shared_asked() { g_shared_asked = 0; }

void set_dry_run(bool on) { g_dry_run = on; }
bool dry_run() { return g_dry_run; }

void note_launch_problem(std::string problem, std::string newer_gpus) {
    if (!g_launch_problem.empty()) return;  // the first one: where it went wrong
    g_launch_problem = std::move(problem);
    g_newer_gpus = std::move(newer_gpus);
}

void note_device_shortfall(std::string shortfall) {
    if (g_shortfall.empty()) g_shortfall = std::move(shortfall);
}

void throw_launch_problem(const std::string& where) {
    if (g_launch_problem.empty()) return;
    const std::string problem = std::exchange(g_launch_problem, {}), newer = std::exchange(g_newer_gpus, {});
    if (!newer.empty())
        throw NeedsNewerGpu(where + "needs a newer GPU than this build's target: " + problem + " (" + newer +
                            " would start it)");
    throw CudaError(where + "a launch no GPU would start: " + problem);
}

namespace detail {
void on_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
    const std::string where = std::string(file) + ":" + std::to_string(line) + ": ";
    if (g_dry_run) {  // no device: every call fails; only a launch no GPU would start is an error
        throw_launch_problem(where);
        return;
    }
    if (!g_shortfall.empty()) throw NeedsNewerGpu(where + std::exchange(g_shortfall, {}));
    throw CudaError(where + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ") in " + expr);
}
}  // namespace detail

double elapsed_ms(CudaEvent& from, CudaEvent& to) {
    to.synchronize();
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return ms;
}

}  // namespace labkit
