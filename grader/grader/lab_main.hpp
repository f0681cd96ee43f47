// The grader program of a lab: `<lab> list | list-files | grade | run`, written once. A lab writes
// no main(): labs/meson.build generates it from grader/grader/lab_grader.cpp.in, which hands the lab's
// declaration (kit/lab.hpp, grader/protocol/lab_declaration.hpp) and what the build knows of the lab to
// lab_main<Lab>() below.
//
// The grader never links student code: it drives a runner program (--runner) built from the
// student's files, the solution's, or a submission's, and decides every verdict itself.
#pragma once

#include <iterator>
#include <string>

#include "lab_description.hpp"

namespace grader {

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
