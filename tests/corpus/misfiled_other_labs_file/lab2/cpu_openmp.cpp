// CORPUS misfiled_other_labs_file — not an attack, a common mistake: Lab 2's cpu_openmp.cpp handed
// in as lab2/cpu_openmp.cpp, beside Lab 1's files. It is not in Lab 1's folder, so Lab 1 must not
// take it (it would not compile there: build-error for a file the student never meant for Lab 1);
// the starter stands in, and the notes say why this file was not used.
#include "histogram_equalization.hpp"

namespace histogram_equalization {

void cpu_openmp(Input in, Output out, int threads) {
#pragma omp parallel for num_threads(threads)
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out(x, y) = in(x, y);
}

}  // namespace histogram_equalization
