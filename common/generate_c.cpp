// labkit::generate for programs that are not C++: the Python track's runner loads this library
// with ctypes, so that its timing images are the grader's, byte for byte.
#include <cstdint>
#include <cstring>
#include <utility>

#include "labkit/generators.hpp"

// labkit::use_photo: the photo of the photo pattern, width x height gray pixels, row-major (copied).
extern "C" int labkit_use_photo(const std::uint8_t* gray, int width, int height) {
    if (width <= 0 || height <= 0) return -1;
    labkit::GrayImage photo(width, height);
    std::memcpy(photo.data(), gray, photo.pixels());
    labkit::use_photo(std::move(photo));
    return 0;
}

extern "C" int labkit_generate(const char* pattern, int width, int height, std::uint64_t seed, std::uint8_t* out) {
    const auto p = labkit::parse_pattern(pattern);
    if (!p || width < 0 || height < 0 || (*p == labkit::Pattern::photo && !labkit::photo_in_use())) return -1;
    const labkit::GrayImage image = labkit::generate(*p, width, height, seed);
    std::memcpy(out, image.data(), static_cast<std::size_t>(width) * height);
    return 0;
}
