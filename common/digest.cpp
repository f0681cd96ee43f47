#include "labkit/digest.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace labkit {
namespace {

template <class U>
std::uint64_t sum_terms(const unsigned char* data, int width, int height, std::size_t pitch_elems) {
    std::uint64_t sum = 0;
    for (int y = 0; y < height; ++y) {
        const auto* row = data + static_cast<std::size_t>(y) * pitch_elems * sizeof(U);
        const std::uint64_t first = static_cast<std::uint64_t>(y) * static_cast<std::uint64_t>(width);
        for (int x = 0; x < width; ++x) {
            U bits;
            std::memcpy(&bits, row + static_cast<std::size_t>(x) * sizeof(U), sizeof(U));
            sum += digest_term(first + static_cast<std::uint64_t>(x), bits);
        }
    }
    return sum;
}

}  // namespace

std::uint64_t host_digest(const void* data, std::size_t elem_size, int width, int height, std::size_t pitch_elems) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    switch (elem_size) {
        case 1: return sum_terms<std::uint8_t>(bytes, width, height, pitch_elems);
        case 2: return sum_terms<std::uint16_t>(bytes, width, height, pitch_elems);
        case 4: return sum_terms<std::uint32_t>(bytes, width, height, pitch_elems);
        case 8: return sum_terms<std::uint64_t>(bytes, width, height, pitch_elems);
        default: throw std::invalid_argument("host_digest: elements of " + std::to_string(elem_size) + " bytes");
    }
}

}  // namespace labkit
