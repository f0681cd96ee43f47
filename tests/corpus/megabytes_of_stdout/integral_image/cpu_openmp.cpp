// CORPUS megabytes_of_stdout — correct code that also prints about 600 MB (300 MB to stdout,
// 300 MB to stderr) at its first call in each process: debug output left in. Before the output
// cap this became a 630 MB log. The grader must keep at most about 1 MB of it, with a note that
// it was cut, and still grade the answers: pass.
#include <unistd.h>

#include <cstdint>
#include <string>

#include "integral_image.hpp"

namespace integral_image {
namespace {

void chatter() {
    std::string line = "debug: row sums look fine so far ";
    while (line.size() < 1023) line += '.';
    line += '\n';
    std::string chunk;
    while (chunk.size() < (1u << 20)) chunk += line;  // 1 MiB of lines
    constexpr int kChunksPerStream = 300;
    for (int fd : {1, 2})
        for (int i = 0; i < kChunksPerStream; ++i)
            if (::write(fd, chunk.data(), chunk.size()) < 0) break;
}

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
    static bool printed = false;
    if (!printed) {
        printed = true;
        chatter();
    }
    constexpr int kStrip = 64;
    const int strips = (in.width + kStrip - 1) / kStrip;
#pragma omp parallel num_threads(threads)
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
