// The grader program of a lab: `<lab> list | list-files | grade | run`, written once. A lab writes
// no main(): labs/meson.build generates it from harness/grader/lab_grader.cpp.in, which hands the lab's
// declaration (kit/lab.hpp, harness/protocol/lab_declaration.hpp) and what the build knows of the lab to
// lab_main<Lab>() below.
//
// The grader never links student code: it drives a runner program (--runner) built from the
// student's files, the solution's, or a submission's, and decides every verdict itself.
#pragma once

#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "grader_exercise.hpp"
#include "lab_declaration.hpp"

namespace grader {

// This side is built on what both sides share (harness/protocol/), named unqualified here.
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
    // The square sizes `grade` times by default; empty: the kit's (harness/protocol/cases.hpp).
    std::vector<int> perf_sizes = {};
};

using Exercises = std::vector<std::unique_ptr<GraderExercise>>;

template <class... E>
Exercises exercises(ExerciseList<E...>) {
    Exercises list;
    (list.push_back(std::make_unique<ExerciseOf<typename E::Contract>>()), ...);
    return list;
}

int lab_main(int argc, char** argv, const LabDescription& lab, Exercises exercises);

// What the build knows of a lab, which its declaration does not say.
struct LabBuild {
    std::string name;            // the lab's folder name
    std::string student_files;   // its kit/meson.build's student_files and python_files, comma-separated
    std::string default_runner;  // the runner built from labs/<lab> (or -Dsubmission)
};

// The generated main's one call: the lab's declaration with the build's facts, its optional
// members defaulted.
template <LabDeclaration Lab>
int lab_main(int argc, char** argv, const LabBuild& build) {
    LabDescription lab{build.name, std::string(Lab::title), build.student_files, build.default_runner};
    if constexpr (requires { Lab::picture; }) {
        lab.picture_option = Lab::picture.name;
        lab.picture_help = Lab::picture.help;
        lab.picture_default = Lab::picture.default_value;
    }
    if constexpr (requires { Lab::perf_sizes; }) lab.perf_sizes.assign(std::begin(Lab::perf_sizes), std::end(Lab::perf_sizes));
    return lab_main(argc, argv, lab, exercises(typename Lab::exercises{}));
}

}  // namespace grader
