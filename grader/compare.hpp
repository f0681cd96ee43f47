// Element-wise comparison of an output with the reference, and the diff image that shows where
// they differ. Exact for integer labs; float labs pass a tolerance.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "labkit/image.hpp"

namespace grader {

template <class T>
struct Mismatch {
    std::size_t wrong = 0;      // elements that differ from the reference
    std::size_t unwritten = 0;  // of those, elements still holding the poison value
    int x = -1, y = -1;         // the first one in row-major order
    T got{}, want{};
    bool ok() const { return wrong == 0; }
};

template <class T>
Mismatch<T> compare(labkit::View<const T> got, labkit::View<const T> want, T poison, double tolerance = 0) {
    Mismatch<T> m;
    for (int y = 0; y < want.height; ++y) {
        for (int x = 0; x < want.width; ++x) {
            const T g = got(x, y), w = want(x, y);
            const bool equal = tolerance == 0 ? g == w
                                              : std::abs(static_cast<double>(g) - static_cast<double>(w)) <= tolerance;
            if (equal) continue;
            if (m.wrong++ == 0) {
                m.x = x;
                m.y = y;
                m.got = g;
                m.want = w;
            }
            if (g == poison) ++m.unwritten;
        }
    }
    return m;
}

// "first mismatch at (x=3, y=1): got 9, want 7; 12 of 35 wrong (2 never written)"
template <class T>
std::string describe(const Mismatch<T>& m, std::size_t pixels) {
    std::string s = "first mismatch at (x=" + std::to_string(m.x) + ", y=" + std::to_string(m.y) + "): got " +
                    std::to_string(m.got) + ", want " + std::to_string(m.want) + "; " + std::to_string(m.wrong) +
                    " of " + std::to_string(pixels) + " wrong";
    if (m.unwritten > 0) s += " (" + std::to_string(m.unwritten) + " never written)";
    return s;
}

// Where a write outside the image landed: the guard space of a pitched buffer that was filled
// with `poison` before the run. `all` spans pitch x (height + 1) elements.
struct GuardHit {
    bool hit = false;
    int x = -1, y = -1;  // x >= width (row padding) or y == height (the guard row)
};

template <class T>
GuardHit find_guard_write(const std::vector<T>& all, int width, int height, std::size_t pitch, T poison) {
    for (int y = 0; y <= height; ++y)
        for (std::size_t x = (y == height ? 0 : static_cast<std::size_t>(width)); x < pitch; ++x)
            if (all[static_cast<std::size_t>(y) * pitch + x] != poison) return {true, static_cast<int>(x), y};
    return {};
}

// RGB diff image: matching pixels are the input, dimmed to gray; wrong pixels red, pixels never
// written yellow. Throws labkit::ImageError if the file cannot be written.
template <class T>
void write_diff_png(const std::string& path, labkit::View<const std::uint8_t> input, labkit::View<const T> got,
                    labkit::View<const T> want, T poison);

void save_rgb(const std::string& path, const std::vector<std::uint8_t>& rgb, int width, int height);

template <class T>
void write_diff_png(const std::string& path, labkit::View<const std::uint8_t> input, labkit::View<const T> got,
                    labkit::View<const T> want, T poison) {
    constexpr int kDim = 3;  // matching pixels at a third of their brightness, so errors stand out
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(want.width) * want.height * 3);
    for (int y = 0; y < want.height; ++y)
        for (int x = 0; x < want.width; ++x) {
            std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * want.width + x) * 3];
            const bool same = got(x, y) == want(x, y);
            const bool unwritten = !same && got(x, y) == poison;
            const std::uint8_t g = static_cast<std::uint8_t>(input(x, y) / kDim);
            p[0] = same ? g : 255;
            p[1] = same ? g : (unwritten ? 255 : 0);
            p[2] = same ? g : 0;
        }
    save_rgb(path, rgb, want.width, want.height);
}

}  // namespace grader
