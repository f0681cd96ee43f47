// Your file to fill in: follow its TODOs. (The kit makes this starter from its reference with tools/starters.py.)
// CPU, OpenMP — expert tier (optional challenge, bonus points): as fast as memory allows
// Changes vs cpu_openmp: yours to say here, as the other files do, with what it costs, where it
//   stops working, and what you read.
// The target: at least as fast as OpenCV's cv2.equalizeHist with the same threads, on uniform
//   noise and on a skewed image (90% of the pixels one value). `./labkit bench
//   histogram_equalization --peers --student` times both on your machine.
#include <cstdint>

#include "histogram_equalization.hpp"
#include "labkit/errors.hpp"

namespace histogram_equalization {

void cpu_openmp_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] int threads) {
    // TODO(step X1): measure first. Time cpu-openmp on the `random` and the `skewed` patterns
    //   (./labkit grade histogram_equalization --variants cpu-openmp). Why is the skewed image
    //   slower, when it does the same number of increments? Think about what ++hist[v] does when
    //   the next pixel has the same v as this one, and what a CPU does with a store followed by a
    //   load of the same address.
    //
    // TODO(step X2): the histogram without that chain. Several copies of the counters per thread,
    //   used in turn, break it. How large may each counter be now, and how many bytes does a
    //   thread's set of copies take (compare with your L1 cache)? One wide load brings in several
    //   pixels, but each then needs a shift and a mask: time both ways before you keep one.
    //
    // TODO(step X3): the LUT, exactly as the header's contract says (your cpu_openmp has it).
    //
    // TODO(step X4): the map. Each pixel is one table lookup; what can you do about the loads
    //   and stores around it? Which thread should map which rows, after counting which rows?
    //   Pitfall: a forked team per phase costs more than you think at small sizes.
    //
    // Then delete this throw.
    throw labkit::NotImplemented("cpu_openmp_expert (cpu_openmp_expert.cpp): optional challenge");
}

}  // namespace histogram_equalization
