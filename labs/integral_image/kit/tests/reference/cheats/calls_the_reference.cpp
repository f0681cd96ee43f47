// CHEAT, on purpose: cpu_openmp that hands the work to the grader's own reference. The reference
// is linked into the grader only, and the interface header marks it so that this stops the
// build with a message that says why. Replaces cpu_openmp.cpp; it must not compile.
#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int) { cpu_sequential(in, out); }

}  // namespace integral_image
