// Lab 3's declaration: its exercise and what the grader says of it. The grader's and the
// runner's main() are generated from it (grader/protocol/lab_declaration.hpp says how).
#pragma once

#include "contract.hpp"
#include "lab_declaration.hpp"
#include "tables.hpp"

namespace convolution {

struct Lab {
    static constexpr std::string_view title = "Lab 3, 2D kernel convolution";
    using exercises = protocol::ExerciseList<protocol::Exercise<Convolution, variants>>;
    using peers = protocol::ExerciseList<protocol::Exercise<Convolution, peer_variants>>;
    static constexpr int perf_sizes[] = {512, 1024, 2048, 4096, 8192};  // the report's three sizes, and two larger
};

}  // namespace convolution
