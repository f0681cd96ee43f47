// The guard check of device images (common/guard_scan.cu) against the host scan it replaced:
// the same first stray write, named the same way, and nothing reported for writes inside.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "labkit/device_buffer.hpp"
#include "labkit/guard.hpp"
#include "labkit/image_pool.hpp"

namespace {

constexpr unsigned char kPoison = 0xA5;

// Writes one byte at a byte offset of the image's allocation.
template <class T>
void stray(const labkit::DeviceImage<T>& image, std::size_t byte_offset) {
    CUDA_CHECK(cudaMemset(reinterpret_cast<unsigned char*>(image.data()) + byte_offset, 0, 1));
}

// What the host scan says of a copy of the whole allocation.
template <class T>
std::string host_scan(const labkit::DeviceImage<T>& image) {
    std::vector<unsigned char> all(image.allocated() * sizeof(T));
    CUDA_CHECK(cudaMemcpy(all.data(), image.data(), all.size(), cudaMemcpyDeviceToHost));
    return labkit::find_guard_write(all.data(), sizeof(T), image.width(), image.height(), image.pitch(), 0, kPoison,
                                    "the output");
}

template <class T>
void check_guard(int width, int height) {
    labkit::DeviceImage<T> image(width, height);
    const std::size_t row_bytes = image.pitch() * sizeof(T);
    labkit::poison(image, kPoison, nullptr);
    CHECK(labkit::guard_report(image, kPoison, "the output", nullptr).empty());

    stray(image, 0);                                                  // inside: the image's own
    stray(image, (static_cast<std::size_t>(height) - 1) * row_bytes + (width - 1) * sizeof(T));  // its last element
    CHECK(labkit::guard_report(image, kPoison, "the output", nullptr).empty());

    stray(image, static_cast<std::size_t>(height) * row_bytes + 3);  // the guard row after the last
    const auto past = labkit::guard_report(image, kPoison, "the output", nullptr);
    CHECK(past == host_scan(image));
    CHECK(past.find("past the last row") != std::string::npos);

    const int y = height / 2;  // an earlier hit, in a row's padding, is the one named
    stray(image, static_cast<std::size_t>(y) * row_bytes + width * sizeof(T) + sizeof(T) - 1);
    const auto padding = labkit::guard_report(image, kPoison, "the output", nullptr);
    CHECK(padding == host_scan(image));
    CHECK(padding == "the output wrote outside its " + std::to_string(width) + "x" + std::to_string(height) +
                         " buffer, at (x=" + std::to_string(width) + ", y=" + std::to_string(y) + ") in the row padding");
}

}  // namespace

TEST_CASE("the device guard check finds the first stray write, as the host scan does") {
    check_guard<std::uint8_t>(1, 1);
    check_guard<std::uint8_t>(4099, 7);
    check_guard<std::uint32_t>(5, 3);
    check_guard<float>(8192, 4097);  // more rows than the scan has blocks
}
