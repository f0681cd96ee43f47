// CHEAT, on purpose: cpu_openmp that hands the work to the grader's own reference. The reference
// is linked into the grader only, and the interface header marks it so that this stops the
// build with a message that says why. Replaces cpu_openmp.cpp; it must not compile.
#include "histogram_equalization.hpp"

namespace histogram_equalization {

void cpu_openmp(Input in, Output out, int) { cpu_sequential(in, out); }

}  // namespace histogram_equalization
