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

namespace {
std::size_t flush_bytes() {
    int device = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    return 2 * static_cast<std::size_t>(l2);  // twice the L2: every old line is evicted
}
}  // namespace

L2Flusher::L2Flusher() : scratch_(flush_bytes()) {}

void L2Flusher::flush(cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_.bytes(), stream));
}

}  // namespace labkit
