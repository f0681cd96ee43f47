// CUDA-event timing and an L2 flush (CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "labkit/device_buffer.hpp"

namespace labkit {

class CudaEvent {
public:
    CudaEvent() { CUDA_CHECK(cudaEventCreate(&event_)); }
    ~CudaEvent() { cudaEventDestroy(event_); }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    void record(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(event_, stream)); }
    void synchronize() { CUDA_CHECK(cudaEventSynchronize(event_)); }
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_{};
};

// Milliseconds between two recorded events (waits for the later one).
double elapsed_ms(CudaEvent& from, CudaEvent& to);

// Reads a buffer twice the size of the L2 cache, so the next timed run starts cold, the way it
// would in a real pipeline where the image was produced long before, and with no dirty lines
// left for it to write back (l2_flush.cu).
class L2Flusher {
public:
    L2Flusher();
    void flush(cudaStream_t stream);

private:
    DeviceBuffer<unsigned char> scratch_;
    DeviceBuffer<std::uint32_t> sink_;  // where the sweep's sum would go, if it ever matched
    int blocks_;
};

class CudaStream {
public:
    CudaStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~CudaStream() { cudaStreamDestroy(stream_); }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    cudaStream_t get() const { return stream_; }
    void synchronize() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    cudaStream_t stream_{};
};

}  // namespace labkit
