// Lab 3's grader: the harness with this lab's exercise. Links no student code.
#include "contract.hpp"
#include "lab_main.hpp"

int main(int argc, char** argv) {
    using namespace convolution;
    grader::LabDescription lab{"convolution", "Lab 3, 2D kernel convolution", LABKIT_STUDENT_FILES, LABKIT_RUNNER};
    lab.perf_sizes = {512, 1024, 2048, 4096, 8192};  // the report's three sizes, and two larger
    return grader::lab_main(argc, argv, lab, grader::exercises<Convolution>());
}
