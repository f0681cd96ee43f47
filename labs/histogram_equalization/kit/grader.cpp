// Lab 2's grader: the harness with this lab's exercise. Links no student code.
#include "contract.hpp"
#include "lab_main.hpp"

int main(int argc, char** argv) {
    using namespace histogram_equalization;
    return grader::lab_main(argc, argv,
                            {"histogram_equalization", "Lab 2, histogram equalization", LABKIT_STUDENT_FILES, LABKIT_RUNNER},
                            grader::exercises<HistogramEqualization>());
}
