// CORPUS oversubscribes_threads — ignores `threads` and always runs a team of 4x the cores, so
// that its one-thread timing is really a many-thread one (and everyone beside it on the machine
// is slowed). The output is right. The grader must compare each call's CPU time with its wall
// time and the threads it was given, and flag it.
#include <omp.h>

#include <cstdint>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input in, Output out, int /*threads*/) {
    constexpr int kOversubscription = 4;
    const int team = kOversubscription * omp_get_num_procs();  // CHEAT (deliberate): not `threads`
    constexpr int kStrip = 64;
    const int strips = (in.width + kStrip - 1) / kStrip;
#pragma omp parallel num_threads(team)
    {
#pragma omp for schedule(static)
        for (int y = 0; y < in.height; ++y) {
            std::uint32_t sum = 0;
            for (int x = 0; x < in.width; ++x) out.row(y)[x] = sum += in(x, y);
        }
#pragma omp for schedule(static)
        for (int s = 0; s < strips; ++s) {
            const int x0 = s * kStrip, x1 = x0 + kStrip < in.width ? x0 + kStrip : in.width;
            for (int y = 1; y < in.height; ++y)
                for (int x = x0; x < x1; ++x) out.row(y)[x] += out.row(y - 1)[x];
        }
    }
}

}  // namespace integral_image
