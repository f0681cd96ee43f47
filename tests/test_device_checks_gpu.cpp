// The checks the runner makes on the device, against their host versions: the guard check
// (common/guard_scan.cu: the same first stray write as the host scan it replaced, named the same
// way, and nothing for writes inside) and the output digest (common/device_digest.cu: the same
// value as the grader's host_digest of the expected output).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "labkit/device_buffer.hpp"
#include "labkit/digest.hpp"
#include "labkit/generators.hpp"
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

namespace {

// An image of T on the device with noise in it, and a dense host copy of it.
template <class T>
std::uint64_t digests_agree(int width, int height, std::uint64_t seed) {
    const auto noise = labkit::generate(labkit::Pattern::random, width, height, seed);
    std::vector<T> host(static_cast<std::size_t>(width) * height);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<T>(noise.data()[i] * 16777259u + i);
    labkit::DeviceImage<T> image(width, height);
    labkit::poison(image, kPoison, nullptr);  // the padding must not count
    CUDA_CHECK(cudaMemcpy2D(image.data(), image.pitch() * sizeof(T), host.data(), width * sizeof(T), width * sizeof(T),
                            height, cudaMemcpyHostToDevice));
    const auto on_device = labkit::device_digest(image, nullptr);
    CHECK(on_device == labkit::host_digest(host.data(), sizeof(T), width, height, static_cast<std::size_t>(width)));
    return on_device;
}

}  // namespace

TEST_CASE("the device digest of an output is the host digest of the same values") {
    digests_agree<std::uint8_t>(1, 1, 1);
    digests_agree<std::uint8_t>(4099, 3, 2);
    digests_agree<std::uint16_t>(31, 33, 3);
    digests_agree<std::uint32_t>(4097, 2049, 4);
    digests_agree<float>(1000, 1000, 5);
    digests_agree<std::uint64_t>(257, 255, 6);
    CHECK(digests_agree<std::uint32_t>(300, 200, 7) != digests_agree<std::uint32_t>(300, 200, 8));
}
