// What the grader side knows of a lab: its description (the declaration's facts and the build's)
// and its exercises, each wrapped for the grader. Every grader file that needs a lab includes this;
// lab_main.hpp, the program's entry, builds them from a lab's declaration.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grader_exercise.hpp"
#include "lab_declaration.hpp"

namespace grader {

// This side is built on what both sides share (grader/protocol/), named unqualified here.
using namespace protocol;

struct LabDescription {
    std::string name;   // the lab's folder name
    std::string title;  // for --help: "Lab N, what it computes"
    std::string student_files;   // "cpu_openmp.cpp,01_naive.cu,..." in the handout's order
    std::string default_runner;  // the runner of labs/<lab>
    // One whole-number option of `run` that the lab's pictures take (e.g. a blur radius); empty: none.
    std::string picture_option = "";
    std::string picture_help = "";
    int picture_default = 0;
    // The square sizes `grade` times by default; empty: the kit's (grader/grader/cases.hpp).
    std::vector<int> perf_sizes = {};
};

using Exercises = std::vector<std::unique_ptr<GraderExercise>>;

template <class... E>
Exercises exercises(ExerciseList<E...>) {
    Exercises list;
    (list.push_back(std::make_unique<ExerciseOf<typename E::Contract>>()), ...);
    return list;
}

}  // namespace grader
