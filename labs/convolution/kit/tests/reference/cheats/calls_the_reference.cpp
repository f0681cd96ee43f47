// CHEAT, on purpose: a cpu_openmp that lets the grader's reference do the work. The interface
// header marks cpu_sequential as not for students, so this must stop the build with a message.
#include "convolution.hpp"

namespace convolution {

void cpu_openmp(Input in, Output out, const float* weights, int size, Border border, int, Schedule) {
    cpu_sequential(in, out, weights, size, border);
}

}  // namespace convolution
