// The FP32 FMA ceiling, measured once per grading run next to the copy bandwidth: every thread
// runs independent chains of fused multiply-adds on registers, enough of them in flight to hide
// the FMA latency, on enough blocks to fill every SM. Counts 2 FLOP per FMA, as datasheets do.
// What a compute-bound kernel reaches is shown against this measured rate, not the datasheet's.
#include <cuda_runtime_api.h>

#include <vector>

#include "labkit/cuda_check.hpp"
#include "labkit/device_buffer.hpp"
#include "labkit/device_info.hpp"
#include "labkit/gpu_timing.hpp"
#include "labkit/timing.hpp"

namespace labkit {
namespace {

constexpr int kChains = 8;         // independent FMA chains per thread: covers the ~4-cycle latency
constexpr int kIterations = 4096;  // FMAs per chain: the launch cost becomes noise
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;    // 2048 threads per SM: full occupancy on recent GPUs
constexpr int kRuns = 10;

__global__ void fma_chains(float* sink, float a, float b) {
    float x[kChains];
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = threadIdx.x + c;
    for (int i = 0; i < kIterations; ++i)
#pragma unroll
        for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], a, b);
    float sum = 0;
#pragma unroll
    for (int c = 0; c < kChains; ++c) sum += x[c];
    // A store the compiler cannot prove dead (a is never 0 in practice), so the chains stay.
    if (sum == 0.0f) sink[threadIdx.x] = sum;
}

}  // namespace

void measure_fma_rate(DeviceInfo& info) {
    if (!info.available) return;
    const int blocks = info.sms * kBlocksPerSm;
    DeviceBuffer<float> sink(kThreads);
    CudaStream stream;
    CudaEvent start, stop;
    // a close to 1 and b small: the values stay finite over every iteration.
    constexpr float kA = 0.999999f, kB = 1e-7f;
    fma_chains<<<blocks, kThreads, 0, stream.get()>>>(sink.data(), kA, kB);  // warm-up
    CUDA_CHECK_LAUNCH();
    std::vector<double> ms;
    for (int i = 0; i < kRuns; ++i) {
        start.record(stream.get());
        fma_chains<<<blocks, kThreads, 0, stream.get()>>>(sink.data(), kA, kB);
        CUDA_CHECK_LAUNCH();
        stop.record(stream.get());
        ms.push_back(elapsed_ms(start, stop));
    }
    constexpr double kFlopsPerFma = 2;
    const double fmas = static_cast<double>(blocks) * kThreads * kChains * kIterations;
    info.fma_gflops = kFlopsPerFma * fmas / (summarize(ms).median * 1e-3) / 1e9;
}

}  // namespace labkit
