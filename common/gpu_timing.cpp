#include "labkit/gpu_timing.hpp"

namespace labkit {

namespace {
bool g_dry_run = false;  // one runner process does one thing: no threads share it
}

void set_dry_run(bool on) { g_dry_run = on; }
bool dry_run() { return g_dry_run; }

namespace detail {
void on_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
    if (g_dry_run) return;
    throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") in " + expr);
}
}  // namespace detail

double elapsed_ms(CudaEvent& from, CudaEvent& to) {
    to.synchronize();
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return ms;
}

}  // namespace labkit
