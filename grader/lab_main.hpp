// The grader program of a lab: `<lab> list | list-files | grade | run`, written once. A lab's
// grader main() describes the lab and hands over its exercises:
//
//   int main(int argc, char** argv) {
//       return grader::lab_main(argc, argv, {"my_lab", "Lab N, what it computes", LABKIT_STUDENT_FILES, LABKIT_RUNNER},
//                               grader::exercises<MainExercise, SecondExercise>());
//   }
// The lab's meson.build defines LABKIT_STUDENT_FILES (its one list of student files, comma-
// separated) and LABKIT_RUNNER (the runner built from labs/, the default --runner).
//
// The grader never links student code: it drives a runner program (--runner) built from the
// student's files, the solution's, or a submission's, and decides every verdict itself.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grader_exercise.hpp"

namespace grader {

struct LabDescription {
    std::string name;   // the lab's folder name
    std::string title;  // for --help: "Lab N, what it computes"
    std::string student_files;   // "cpu_openmp.cpp,01_naive.cu,..." in the handout's order
    std::string default_runner;  // the runner of labs/<lab>
    // One whole-number option of `run` that the lab's pictures take (e.g. a blur radius); empty: none.
    std::string picture_option = "";
    std::string picture_help = "";
    int picture_default = 0;
    // The square sizes `grade` times by default; empty: the kit's (grader/cases.hpp).
    std::vector<int> perf_sizes = {};
};

using Exercises = std::vector<std::unique_ptr<GraderExercise>>;

template <class... Contracts>
Exercises exercises() {
    Exercises list;
    (list.push_back(std::make_unique<ExerciseOf<Contracts>>()), ...);
    return list;
}

int lab_main(int argc, char** argv, const LabDescription& lab, Exercises exercises);

}  // namespace grader
