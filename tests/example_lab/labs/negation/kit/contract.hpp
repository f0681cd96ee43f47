// The example lab's contract with the harness: an 8-bit image in, its negative out, compared
// exactly. Shared by the grader and the runner; the reference and the picture (reference.cpp)
// are linked into the grader only.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "exercise.hpp"
#include "negation.hpp"

namespace negation {

using u8 = std::uint8_t;

// snippet: contract
struct Negation : protocol::WithoutParams, protocol::GrayInSameSizeOut {
    static constexpr std::string_view name = "negation";
    static constexpr std::string_view reference_name = "cpu-sequential";
    using In = u8;
    using Out = u8;
    // Zeros and all-255 are the two ends of the range; noise and the ramp catch a pixel misplaced.
    static constexpr labkit::Pattern patterns[] = {labkit::Pattern::random, labkit::Pattern::zeros,
                                                   labkit::Pattern::full, labkit::Pattern::gradient};
    static constexpr bool uses_photos = true;
    static constexpr protocol::Comparison comparison = protocol::exact();
    static constexpr double min_bytes_per_pixel = sizeof(In) + sizeof(Out);  // read the image, write its negative
    static constexpr std::array<protocol::Stage, 0> stages{};                // one pass

    // Grader only (reference.cpp).
    static void reference(View<const In> in, View<Out> out, const Params&);
    static labkit::GrayImage picture(View<const In> in, View<const Out> out, int);
};
// snippet: end

}  // namespace negation
