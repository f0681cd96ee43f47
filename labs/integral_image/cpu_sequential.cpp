// cpu-sequential — the baseline every variant is checked against. Not student-editable.
// The recurrence I(x,y) = i(x,y) + I(x-1,y) + I(x,y-1) - I(x-1,y-1), with I = 0 outside the
// image. All arithmetic is uint32, so it wraps modulo 2^32 exactly as the contract says
// (unsigned overflow is defined in C++; signed overflow would not be).
// Ref: Crow, "Summed-area tables for texture mapping", SIGGRAPH 1984.
#include "integral_image.hpp"

namespace integral_image {

void cpu_sequential(Input in, Output out) {
    for (int y = 0; y < in.height; ++y) {
        for (int x = 0; x < in.width; ++x) {
            const std::uint32_t left = x > 0 ? out(x - 1, y) : 0u;
            const std::uint32_t up = y > 0 ? out(x, y - 1) : 0u;
            const std::uint32_t diag = x > 0 && y > 0 ? out(x - 1, y - 1) : 0u;
            out(x, y) = in(x, y) + left + up - diag;
        }
    }
}

}  // namespace integral_image
