// The example lab's declaration: its exercise and what the grader says of it. The grader's and
// the runner's main() are generated from it (grader/protocol/lab_declaration.hpp says how).
#pragma once

#include "contract.hpp"
#include "lab_declaration.hpp"
#include "tables.hpp"

namespace negation {

// snippet: declaration
struct Lab {
    static constexpr std::string_view title = "the example lab, image negation";
    using exercises = protocol::ExerciseList<protocol::Exercise<Negation, variants>>;
};
// snippet: end

}  // namespace negation
