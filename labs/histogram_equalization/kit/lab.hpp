// Lab 2's declaration: its exercise and what the grader says of it. The grader's and the
// runner's main() are generated from it (grader/protocol/lab_declaration.hpp says how).
#pragma once

#include "contract.hpp"
#include "lab_declaration.hpp"
#include "tables.hpp"

namespace histogram_equalization {

struct Lab {
    static constexpr std::string_view title = "Lab 2, histogram equalization";
    using exercises = protocol::ExerciseList<protocol::Exercise<HistogramEqualization, variants>>;
    using peers = protocol::ExerciseList<protocol::Exercise<HistogramEqualization, peer_variants>>;
};

}  // namespace histogram_equalization
