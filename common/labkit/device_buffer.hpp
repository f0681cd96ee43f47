// RAII owners of device and pinned host memory. Nothing outside common/ calls cudaMalloc.
//
// DeviceBuffer<T> is a move-only array on the GPU. DeviceImage<T> is a pitched image on the GPU
// whose rows are padded to kPitchAlignBytes and followed by guard space (kGuardElems elements of
// every row and one guard row): the grader fills the guard with a canary and finds writes that
// land outside the image, which an unpadded buffer would silently absorb.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "labkit/cuda_check.hpp"
#include "labkit/image.hpp"

namespace labkit {

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count_ * sizeof(T)));
    }
    ~DeviceBuffer() {
        if (data_) cudaFree(data_);  // no throw from a destructor; a failure here leaks, nothing worse
    }
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* data() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

// Page-locked host memory: copies from it run at full PCIe/NVLink speed and can be asynchronous.
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t count) : count_(count) {
        if (count_ > 0) CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count_ * sizeof(T)));
    }
    ~PinnedBuffer() {
        if (data_) cudaFreeHost(data_);
    }
    PinnedBuffer(PinnedBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
        return *this;
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    T* data() const { return data_; }
    std::size_t size() const { return count_; }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

// Rows start on 128-byte boundaries: one full memory transaction per warp-wide row segment.
inline constexpr std::size_t kPitchAlignBytes = 128;
// At least this many guard elements follow every row; 32 is one warp's worth, enough to catch
// the usual "one warp too many" overrun.
inline constexpr std::size_t kGuardElems = 32;

template <class T>
class DeviceImage {
public:
    DeviceImage() = default;
    DeviceImage(int width, int height)
        : width_(width), height_(height), pitch_(padded_pitch(width)),
          buffer_(pitch_ * (static_cast<std::size_t>(height) + 1)) {}

    int width() const { return width_; }
    int height() const { return height_; }
    std::size_t pitch() const { return pitch_; }
    // Every element of the allocation, guard space included.
    std::size_t allocated() const { return buffer_.size(); }
    T* data() const { return buffer_.data(); }

    View<T> view() const { return {buffer_.data(), width_, height_, pitch_}; }
    View<const T> cview() const { return {buffer_.data(), width_, height_, pitch_}; }

    static std::size_t padded_pitch(int width) {
        constexpr std::size_t align = kPitchAlignBytes / sizeof(T);
        static_assert(kPitchAlignBytes % sizeof(T) == 0, "element size must divide the alignment");
        const std::size_t w = static_cast<std::size_t>(width) + kGuardElems;
        return (w + align - 1) / align * align;
    }

private:
    int width_ = 0;
    int height_ = 0;
    std::size_t pitch_ = 0;
    DeviceBuffer<T> buffer_;
};

// Copies between a dense host view and a pitched device image.
template <class T>
void upload(View<const T> host, const DeviceImage<T>& dev, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpy2DAsync(dev.data(), dev.pitch() * sizeof(T), host.data, host.pitch * sizeof(T),
                                 host.width * sizeof(T), host.height, cudaMemcpyHostToDevice, stream));
}
template <class T>
void download(const DeviceImage<T>& dev, View<T> host, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpy2DAsync(host.data, host.pitch * sizeof(T), dev.data(), dev.pitch() * sizeof(T),
                                 host.width * sizeof(T), host.height, cudaMemcpyDeviceToHost, stream));
}

}  // namespace labkit
