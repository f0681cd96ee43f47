// On a GPU, a launch that asks for more shared memory per block than this device gives is a
// skip with what it needs and what the GPU allows (grader/runner/launch_check.cpp, through the runners'
// -Wl,--wrap), not CUDA's cudaErrorInvalidValue; a launch that fits runs as before.
// Needs a CUDA device (catch_main_gpu.cpp exits 77 without one).
#if LABKIT_CATCH2_MAJOR >= 3
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cuda_runtime_api.h>

#include <string>

#include "labkit/cuda_check.hpp"
#include "labkit/errors.hpp"

namespace {

__global__ void fill_shared(int* out) {
    extern __shared__ int scratch[];
    scratch[threadIdx.x] = static_cast<int>(threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) *out = scratch[blockDim.x - 1];
}

std::size_t device_optin() {
    int id = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&id));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, id));
    return static_cast<std::size_t>(optin);
}

constexpr std::size_t kKib = 1024;
constexpr int kThreads = 32;

}  // namespace

TEST_CASE("an opt-in past this GPU's shared memory is a skip that says what it needs and what the GPU allows") {
    const std::size_t optin = device_optin();
    const std::size_t asked = optin + 8 * kKib;
    std::string message;
    try {
        CUDA_CHECK(cudaFuncSetAttribute(fill_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(asked)));
    } catch (const labkit::NeedsNewerGpu& e) {
        message = e.what();
    }
    INFO(message);
    CHECK(message.find("needs " + std::to_string(asked / kKib) + " KB of shared memory per block") != std::string::npos);
    CHECK(message.find("allows " + std::to_string(optin / kKib) + " KB") != std::string::npos);
    CHECK(message.find("test_device_limits_gpu.cu:") != std::string::npos);  // where, as every CUDA check says
}

TEST_CASE("a launch past this GPU's shared memory is a skip; one that fits runs") {
    const std::size_t optin = device_optin();
    int* out = nullptr;
    CUDA_CHECK(cudaMalloc(&out, sizeof(int)));
    std::string message;
    try {
        fill_shared<<<1, kThreads, optin + 8 * kKib>>>(out);
        CUDA_CHECK_LAUNCH();
    } catch (const labkit::NeedsNewerGpu& e) {
        message = e.what();
    }
    INFO(message);
    CHECK(message.find("of shared memory per block; this GPU (sm_") != std::string::npos);
    // Nothing is left pending: the next launch, within the limits, runs and checks clean.
    CUDA_CHECK(cudaFuncSetAttribute(fill_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(optin)));
    fill_shared<<<1, kThreads, optin>>>(out);
    CHECK_NOTHROW([] { CUDA_CHECK_LAUNCH(); }());
    int got = 0;
    CUDA_CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(got == kThreads - 1);
    CUDA_CHECK(cudaFree(out));
}
