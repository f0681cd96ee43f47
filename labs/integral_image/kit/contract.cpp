// The parts of the contract that both the grader and the runner need.
#include "contract.hpp"

namespace integral_image {

labkit::HostImage<u32> Transpose::make_input(labkit::Pattern p, int width, int height, std::uint64_t seed) {
    // A 32-bit value per pixel, so that a transpose that swaps or drops elements cannot pass by
    // matching an image of repeated 8-bit values.
    const auto pixels = labkit::generate(p, width, height, seed);
    labkit::HostImage<u32> image(width, height);
    for (std::size_t i = 0; i < image.pixels(); ++i)
        image.data()[i] = p == labkit::Pattern::random ? static_cast<u32>(labkit::mix64(seed ^ i)) : pixels.data()[i];
    return image;
}

labkit::HostImage<u32> Transpose::from_photo(const labkit::GrayImage& gray) {
    labkit::HostImage<u32> image(gray.width(), gray.height());
    std::copy(gray.data(), gray.data() + gray.pixels(), image.data());
    return image;
}

}  // namespace integral_image
