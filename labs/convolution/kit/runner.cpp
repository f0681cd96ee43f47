// Lab 3's runner: the harness's runner side with this lab's table, linked with the student's
// files (or the solution's, or a submission's).
#include "runner.hpp"
#include "tables.hpp"

int main(int argc, char** argv) {
    using namespace convolution;
    return grader::runner_main(argc, argv, grader::runner_exercises<Convolution>(variants()));
}
