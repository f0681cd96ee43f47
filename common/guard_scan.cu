// The guard check of a device image, on the device. The guard space of a pitched image is the
// tail of every row (pitch - width elements) and one whole row after the last; the check used
// to copy the whole allocation to the host and scan it there, which for an 8192^2 32-bit output
// and the intermediate images of a pipeline moved about a gigabyte per case and made the guard
// check the most expensive part of a correctness run. Here one block per row (grid-stride over
// rows) looks at the guard bytes only, and the lowest offset of a byte that is not the poison
// byte comes back: the same first hit, in the same row-major order, as the host scan
// (labkit::find_guard_write). Cost: a few microseconds and one 8-byte copy per image.
#include <cuda_runtime_api.h>

#include <limits>

#include "labkit/cuda_check.hpp"
#include "labkit/device_buffer.hpp"
#include "labkit/guard.hpp"
#include "labkit/image_pool.hpp"

namespace labkit {
namespace {

constexpr unsigned long long kNoHit = std::numeric_limits<unsigned long long>::max();
constexpr int kScanThreads = 128;     // guard tails are tens to hundreds of bytes: one small block per row
constexpr int kMaxScanBlocks = 4096;  // enough blocks to fill the GPU; taller images loop

__global__ void first_stray_byte(const unsigned char* all, unsigned long long row_bytes,
                                 unsigned long long image_row_bytes, int height, unsigned char byte,
                                 unsigned long long* first) {
    for (long long r = blockIdx.x; r <= height; r += gridDim.x) {
        const unsigned long long start = r < height ? image_row_bytes : 0;  // the last row is all guard
        for (unsigned long long b = start + threadIdx.x; b < row_bytes; b += blockDim.x) {
            const unsigned long long offset = static_cast<unsigned long long>(r) * row_bytes + b;
            if (all[offset] != byte) atomicMin(first, offset);
        }
    }
}

}  // namespace

std::string guard_report(const void* data, std::size_t elem_size, int width, int height, std::size_t pitch,
                         unsigned char byte, const std::string& what, cudaStream_t stream) {
    const std::size_t row_bytes = pitch * elem_size;
    DeviceBuffer<unsigned long long> first(1);
    CUDA_CHECK(cudaMemsetAsync(first.data(), 0xFF, sizeof(unsigned long long), stream));  // kNoHit
    const int blocks = static_cast<int>(std::min<long long>(static_cast<long long>(height) + 1, kMaxScanBlocks));
    first_stray_byte<<<blocks, kScanThreads, 0, stream>>>(static_cast<const unsigned char*>(data), row_bytes,
                                                          static_cast<std::size_t>(width) * elem_size, height, byte,
                                                          first.data());
    CUDA_CHECK(cudaGetLastError());
    unsigned long long hit = kNoHit;
    CUDA_CHECK(cudaMemcpyAsync(&hit, first.data(), sizeof hit, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (hit == kNoHit) return "";
    const int y = static_cast<int>(hit / row_bytes);  // device images start at their first row
    return guard_write_message(what, width, height, (hit % row_bytes) / elem_size, y);
}

}  // namespace labkit
