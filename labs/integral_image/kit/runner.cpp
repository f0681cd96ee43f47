// Lab 1's runner: the harness's runner side with this lab's tables, linked with the student's
// files (or the solution's, or a submission's).
#include "runner.hpp"
#include "tables.hpp"

int main(int argc, char** argv) {
    using namespace integral_image;
    return grader::runner_main(argc, argv,
                               grader::runner_exercises<IntegralImage, Transpose, IntegralImage64, IntegralImageExclusive>(
                                   variants(), transpose_variants(), variants_64(), exclusive_variants()));
}
