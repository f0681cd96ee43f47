// L2Flusher: the cold start of every GPU timing. It reads a buffer twice the size of L2, which
// evicts every line the last run left (its writes go back to memory now, outside the timed
// window) and leaves L2 holding clean lines only. A memset would leave it full of dirty lines of
// its own, and the timed kernel would pay for writing them back: on an H100 that was about 8 us
// added to the first kernel of every run (a read of 64 MiB took 34 us after a memset, 26 us
// after a read).
#include <cstdint>

#include "labkit/cuda_check.hpp"
#include "labkit/gpu_timing.hpp"
#include "labkit/launch.hpp"

namespace labkit {

namespace {

constexpr int kSweepThreads = 256;
constexpr int kSweepBlocksPerSm = 8;
constexpr std::uint32_t kNeverSeen = 0x9e3779b9u;  // a sum the sweep will not meet, in practice

std::size_t flush_bytes() {
    int device = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    return 2 * static_cast<std::size_t>(l2);  // twice the L2: every old line is evicted
}

// Reads every word; the conditional store keeps the compiler from dropping the loads.
__global__ void read_sweep(const uint4* __restrict__ words, std::size_t count, std::uint32_t* sink) {
    std::uint32_t sum = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const uint4 w = words[i];
        sum += w.x ^ w.y ^ w.z ^ w.w;
    }
    if (sum == kNeverSeen) *sink = sum;
}

int sweep_blocks() {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms * kSweepBlocksPerSm;
}

}  // namespace

L2Flusher::L2Flusher() : scratch_(flush_bytes()), sink_(1), blocks_(sweep_blocks()) {
    CUDA_CHECK(cudaMemset(scratch_.data(), 0, scratch_.bytes()));  // read below: never uninitialized
}

void L2Flusher::flush(cudaStream_t stream) {
    const std::size_t words = scratch_.bytes() / sizeof(uint4);
    read_sweep<<<blocks_, kSweepThreads, 0, stream>>>(reinterpret_cast<const uint4*>(scratch_.data()), words,
                                                      sink_.data());
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace labkit
