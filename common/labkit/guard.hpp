// Guard space: the elements around an image that nobody may write. The harness fills them with a
// poison byte before a run and looks at them after it, on the GPU (labkit::guard_report) and on
// the CPU (GuardedHostImage), so that a write past the end is a verdict, not silent corruption.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "labkit/image.hpp"

namespace labkit {

// Scans a copy of a whole allocation laid out as `lead_rows` guard rows, then `height` rows of
// `pitch` elements (the image's `width` first, then guard), then one guard row. "" when only
// `byte` is found outside the image; else where the first stray write landed.
std::string find_guard_write(const unsigned char* all, std::size_t elem_size, int width, int height, std::size_t pitch,
                             int lead_rows, unsigned char byte, const std::string& what);
// The report of a stray write found at element x of row y (y < 0: a guard row before the image,
// y == height: the one after it).
std::string guard_write_message(const std::string& what, int width, int height, std::size_t x, int y);

// A host output with guard space: a guard row before and after, and kHostGuardElems elements
// after every row, all poisoned. view() is what the variant gets.
template <class T>
class GuardedHostImage {
public:
    static constexpr std::size_t kHostGuardElems = 32;  // as on the GPU: a warp's worth of overrun

    GuardedHostImage(int width, int height, unsigned char byte)
        : width_(width), height_(height), pitch_(static_cast<std::size_t>(width) + kHostGuardElems), byte_(byte),
          all_(pitch_ * (static_cast<std::size_t>(height) + 2)) {
        poison();
    }
    void poison() { std::memset(all_.data(), byte_, all_.size() * sizeof(T)); }
    View<T> view() { return {all_.data() + pitch_, width_, height_, pitch_}; }
    View<const T> cview() const { return {all_.data() + pitch_, width_, height_, pitch_}; }
    std::string guard_report(const std::string& what) const {
        return find_guard_write(reinterpret_cast<const unsigned char*>(all_.data()), sizeof(T), width_, height_, pitch_,
                                1, byte_, what);
    }

private:
    int width_, height_;
    std::size_t pitch_;
    unsigned char byte_;
    std::vector<T> all_;
};

}  // namespace labkit
