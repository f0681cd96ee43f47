// Lab 2's runner: the harness's runner side with this lab's table, linked with the student's
// files (or the solution's, or a submission's).
#include "runner.hpp"
#include "tables.hpp"

int main(int argc, char** argv) {
    using namespace histogram_equalization;
    return grader::runner_main(argc, argv, grader::runner_exercises<HistogramEqualization>(variants()));
}
