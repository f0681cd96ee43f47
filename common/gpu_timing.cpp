#include "labkit/gpu_timing.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace labkit {

namespace {
bool g_dry_run = false;        // one runner process does one thing: no threads share it
std::string g_launch_problem;  // a dry run's launch that the target would not start, not yet thrown
std::string g_newer_gpus;      // the GPUs that would start it ("" when none would)
std::string g_shortfall;       // on a GPU: what a launch needs that this device does not give
int g_dry_sm = 0;               // the compute capability a dry run stands for (0: the build's target)
std::vector<DryLaunch> g_launches;  // a dry run's launches since the reset
}

void note_dry_launch(unsigned threads, std::size_t shared_bytes) { g_launches.push_back({threads, shared_bytes}); }
void name_dry_launch(const void* kernel, std::size_t opted_in) {
    if (g_launches.empty() || g_launches.back().kernel != nullptr) return;
    g_launches.back().kernel = kernel;
    g_launches.back().opted_in = opted_in;
}
const std::vector<DryLaunch>& dry_launches() { return g_launches; }
std::size_t dynamic_shared_asked() {
    std::size_t most = 0;
    for (const auto& l : g_launches) most = std::max(most, l.shared_bytes);
    return most;
}
void reset_dry_launches() { g_launches.clear(); }

void set_dry_run(bool on, int as_sm) {
    g_dry_run = on;
    g_dry_sm = on ? as_sm : 0;
}
bool dry_run() { return g_dry_run; }
int dry_run_sm() { return g_dry_sm; }

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
        throw NeedsNewerGpu(where + "needs a newer GPU than " +
                            (g_dry_sm != 0 ? "the one this dry run stands for" : "this build's target") + ": " + problem + " (" + newer +
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
