// Host images and non-owning pitched views, shared by every lab.
//
// A View is what kernels and CPU code receive: a pointer, a size and a row pitch (in elements,
// not bytes, so indexing reads like the maths: v(x, y) = data[y * pitch + x]). It is trivially
// copyable, so it can be passed by value to a __global__ function. HostImage owns its pixels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#define LABKIT_HD __host__ __device__
#else
#define LABKIT_HD
#endif

namespace labkit {

template <class T>
struct View {
    T* data = nullptr;
    int width = 0;
    int height = 0;
    std::size_t pitch = 0;  // elements between the starts of two rows (>= width)

    LABKIT_HD T& operator()(int x, int y) const { return data[static_cast<std::size_t>(y) * pitch + x]; }
    LABKIT_HD T* row(int y) const { return data + static_cast<std::size_t>(y) * pitch; }
    LABKIT_HD std::size_t pixels() const { return static_cast<std::size_t>(width) * height; }

    // A View<T> converts to a View<const T>, never the other way.
    template <class U = T>
        requires(!std::is_const_v<U>)
    LABKIT_HD operator View<const U>() const {
        return {data, width, height, pitch};
    }
};
static_assert(std::is_trivially_copyable_v<View<int>>, "views are passed by value to kernels");

template <class T>
class HostImage {
public:
    HostImage() = default;
    HostImage(int width, int height, T fill = T{})
        : width_(width), height_(height), pixels_(static_cast<std::size_t>(width) * height, fill) {}

    int width() const { return width_; }
    int height() const { return height_; }
    std::size_t pixels() const { return pixels_.size(); }
    bool empty() const { return pixels_.empty(); }

    T& operator()(int x, int y) { return pixels_[static_cast<std::size_t>(y) * width_ + x]; }
    const T& operator()(int x, int y) const { return pixels_[static_cast<std::size_t>(y) * width_ + x]; }
    T* data() { return pixels_.data(); }
    const T* data() const { return pixels_.data(); }

    View<T> view() { return {pixels_.data(), width_, height_, static_cast<std::size_t>(width_)}; }
    View<const T> view() const { return {pixels_.data(), width_, height_, static_cast<std::size_t>(width_)}; }

private:
    int width_ = 0;
    int height_ = 0;
    std::vector<T> pixels_;
};

using GrayImage = HostImage<std::uint8_t>;

}  // namespace labkit
