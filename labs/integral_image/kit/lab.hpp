// Lab 1's declaration: its exercises in order and what the grader says of it. The grader's and
// the runner's main() are generated from it (grader/protocol/lab_declaration.hpp says how).
#pragma once

#include "contract.hpp"
#include "lab_declaration.hpp"
#include "tables.hpp"

namespace integral_image {

// snippet: declaration
struct Lab {
    static constexpr std::string_view title = "Lab 1, the integral image (summed-area table)";
    using exercises = protocol::ExerciseList<protocol::Exercise<IntegralImage, variants>, protocol::Exercise<Transpose, transpose_variants>,
                                           protocol::Exercise<IntegralImage64, variants_64>,
                                           protocol::Exercise<IntegralImageExclusive, exclusive_variants>>;
    using peers = protocol::ExerciseList<protocol::Exercise<IntegralImage, peer_variants>>;
    static constexpr protocol::PictureOption picture = {
        "radius", "the picture: the input beside its box blur of this radius, computed from the table with four lookups a pixel",
        SatCases::kPictureRadius};
};
// snippet: end

}  // namespace integral_image
