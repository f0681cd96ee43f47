// What every GPU launcher receives besides its views: the stream to launch on and a workspace
// for scratch buffers. This header needs no CUDA headers, so lab interfaces that include it
// also compile in a CPU-only build.
#pragma once

#include <cstddef>
#include <memory>

struct CUstream_st;  // the type behind cudaStream_t

namespace labkit {

using Stream = CUstream_st*;  // identical to cudaStream_t

// Scratch device memory that outlives one call. Launchers ask for a buffer by slot; the first
// (warm-up) call allocates it, later calls of the same or smaller size reuse it, so timed runs
// contain no cudaMalloc. Contents are not preserved or cleared between calls.
class Workspace {
public:
    Workspace();
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    template <class T, class Slot>
    T* get(Slot slot, std::size_t count) {
        return static_cast<T*>(get_bytes(static_cast<int>(slot), count * sizeof(T)));
    }

private:
    void* get_bytes(int slot, std::size_t bytes);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

class ImagePool;   // intermediate images of a pipeline (labkit/image_pool.hpp, CUDA builds)
class StageClock;  // events between the named stages of a pipeline (labkit/image_pool.hpp)

struct GpuContext {
    Stream stream = nullptr;
    Workspace* workspace = nullptr;
    // Set by the grading harness for the lab's pipeline composition; student launchers
    // need neither. Images from the pool are poisoned and guard-checked like the output.
    ImagePool* images = nullptr;
    StageClock* stages = nullptr;
};

}  // namespace labkit
