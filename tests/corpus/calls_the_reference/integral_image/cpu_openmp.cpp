// CORPUS calls_the_reference — hands the work to the grader's own reference, cpu_sequential.
// The reference is linked into the grader only, and the interface header marks it so that a
// call stops the build with a message saying why: build-error.
#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int) { cpu_sequential(in, out); }

}  // namespace integral_image
