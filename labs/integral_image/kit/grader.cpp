// Lab 1's grader: the harness with this lab's exercises. Links no student code.
#include "contract.hpp"
#include "lab_main.hpp"

int main(int argc, char** argv) {
    using namespace integral_image;
    return grader::lab_main(argc, argv,
                            {"integral_image", "Lab 1, the integral image (summed-area table)", LABKIT_STUDENT_FILES,
                             LABKIT_RUNNER, "radius",
                             "the picture: the input beside its box blur of this radius, computed from the table "
                             "with four lookups a pixel",
                             SatCases::kPictureRadius},
                            grader::exercises<IntegralImage, Transpose, IntegralImage64, IntegralImageExclusive>());
}
