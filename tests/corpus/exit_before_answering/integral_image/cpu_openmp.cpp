// CORPUS exit_before_answering — calls exit(0) at its first call, before answering any case.
// This once got PASS with 0 of 31 cases run. An exit with cases unanswered must be an ERROR.
#include <cstdlib>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) { std::exit(0); }

}  // namespace integral_image
