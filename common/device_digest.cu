// labkit::device_digest: the digest of labkit/digest.hpp, of a pitched image on the device. One
// pass over the image at memory speed (an 8192^2 32-bit output: about 0.1 ms on an H100): every
// thread sums the terms of its elements (grid-stride over rows, then columns), a warp adds its
// 32 sums with shuffles, and one atomic per warp adds them into the result.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "labkit/cuda_check.hpp"
#include "labkit/device_buffer.hpp"
#include "labkit/digest.hpp"
#include "labkit/image_pool.hpp"

namespace labkit {
namespace {

constexpr int kDigestThreads = 256;
constexpr int kMaxDigestBlocks = 4096;  // enough to fill the GPU; larger images loop
constexpr unsigned kFullWarp = 0xFFFFFFFFu;
constexpr int kWarp = 32;

template <class U>
__global__ void digest_kernel(const U* data, int width, int height, unsigned long long pitch,
                              unsigned long long* sum) {
    std::uint64_t mine = 0;
    const int columns_per_row = (width + blockDim.x - 1) / blockDim.x;
    for (long long task = blockIdx.x; task < static_cast<long long>(height) * columns_per_row; task += gridDim.x) {
        const long long y = task / columns_per_row;
        const int x = static_cast<int>(task % columns_per_row) * blockDim.x + threadIdx.x;
        if (x < width) mine += digest_term(static_cast<std::uint64_t>(y) * width + x, data[y * pitch + x]);
    }
    for (int offset = kWarp / 2; offset > 0; offset /= 2) mine += __shfl_down_sync(kFullWarp, mine, offset);
    if (threadIdx.x % kWarp == 0) atomicAdd(sum, static_cast<unsigned long long>(mine));
}

template <class U>
void launch(const void* data, int width, int height, std::size_t pitch, unsigned long long* sum, cudaStream_t stream) {
    const long long tasks = static_cast<long long>(height) * ((width + kDigestThreads - 1) / kDigestThreads);
    const int blocks = static_cast<int>(std::clamp<long long>(tasks, 1, kMaxDigestBlocks));
    digest_kernel<U><<<blocks, kDigestThreads, 0, stream>>>(static_cast<const U*>(data), width, height, pitch, sum);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace

std::uint64_t device_digest(const void* data, std::size_t elem_size, int width, int height, std::size_t pitch,
                            cudaStream_t stream) {
    DeviceBuffer<unsigned long long> sum(1);
    CUDA_CHECK(cudaMemsetAsync(sum.data(), 0, sizeof(unsigned long long), stream));
    switch (elem_size) {
        case 1: launch<std::uint8_t>(data, width, height, pitch, sum.data(), stream); break;
        case 2: launch<std::uint16_t>(data, width, height, pitch, sum.data(), stream); break;
        case 4: launch<std::uint32_t>(data, width, height, pitch, sum.data(), stream); break;
        case 8: launch<std::uint64_t>(data, width, height, pitch, sum.data(), stream); break;
        default: throw std::invalid_argument("device_digest: elements of " + std::to_string(elem_size) + " bytes");
    }
    unsigned long long result = 0;
    CUDA_CHECK(cudaMemcpyAsync(&result, sum.data(), sizeof result, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return result;
}

}  // namespace labkit
