// What a lab declares once, in its kit/lab.hpp, and both of its programs are built from. The
// mains are generated (grader/grader/lab_grader.cpp.in and lab_runner.cpp.in, configured per lab by
// labs/meson.build); a lab writes no main():
//
//   namespace my_lab {            // the lab's folder name, labs/my_lab/
//   struct Lab {
//       static constexpr std::string_view title = "Lab N, what it computes";  // the grader's --help
//       // Its exercises in order, each a contract and the function returning its variant table
//       // (kit/tables.cpp): the grader takes the contracts, the runner the tables.
//       using exercises = protocol::ExerciseList<protocol::Exercise<MainContract, variants>,
//                                              protocol::Exercise<SecondContract, second_variants>>;
//       // Optional: the one whole-number option of `run` that the pictures take (none by default),
//       static constexpr protocol::PictureOption picture = {"radius", "what it changes", 8};
//       // and the square sizes `grade` times (the kit's by default: grader/grader/cases.hpp).
//       static constexpr int perf_sizes[] = {512, 1024, 2048};
//       // Optional: the peers, what a user would call instead (CUB, NPP), as rows `peer-LIBRARY`
//       // of the same contracts, defined in kit/peers.cu. Only the solution's runner has them
//       // (CUDA builds, not emulated): checked and timed like every variant, never scored.
//       using peers = protocol::ExerciseList<protocol::Exercise<MainContract, peer_variants>>;
//   };
//   }
//
// Shared by both sides: naming a table here links nothing, since only the runner calls it.
#pragma once

#include <concepts>
#include <span>
#include <string_view>

#include "exercise.hpp"

namespace protocol {

// One exercise: its contract and its variant table.
template <class C, std::span<const Variant<C>> (*Table)()>
struct Exercise {
    using Contract = C;
    static std::span<const Variant<C>> table() { return Table(); }
};

// A lab's exercises, in the order `list` and the reports show them.
template <class... Exercises>
struct ExerciseList {};

// `run --NAME VALUE`: a whole number the lab's pictures take (a blur radius), handed to picture().
struct PictureOption {
    std::string_view name;
    std::string_view help;
    int default_value;
};

template <class L>
concept LabDeclaration = requires {
    { L::title } -> std::convertible_to<std::string_view>;
    typename L::exercises;
};

}  // namespace protocol
