// CORPUS fills_the_disk — at its first call in each process, writes big files into its working
// folder, /tmp and $TMPDIR, and never removes them; then answers correctly. The grader must
// limit what a submission can write (a file-size limit ends it: CRASH, or a full scratch folder:
// the writes fail and it passes), finish grading, and leave none of the files behind: the only
// writable place is a private scratch folder that goes with the sandbox.
// Safety: at most 4 files of 256 MiB per folder, and it stops while a file system has less than
// 8 GiB free, so that running it without a sandbox cannot fill the machine's disk.
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

bool roomy(const std::string& dir) {
    struct statvfs s {};
    constexpr unsigned long long kReserve = 8ull << 30;
    return ::statvfs(dir.c_str(), &s) == 0 && static_cast<unsigned long long>(s.f_bavail) * s.f_frsize > kReserve;
}

void fill() {
    std::vector<std::string> dirs{".", "/tmp"};
    if (const char* t = std::getenv("TMPDIR"); t && *t) dirs.emplace_back(t);
    const std::vector<char> block(16 * kMiB, 'x');
    constexpr int kFilesPerDir = 4;
    constexpr int kBlocksPerFile = 16;  // 256 MiB
    for (const auto& dir : dirs)
        for (int f = 0; f < kFilesPerDir && roomy(dir); ++f) {
            const std::string path = dir + "/corpus-fill-" + std::to_string(::getpid()) + "-" + std::to_string(f) + ".bin";
            const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0) break;
            bool ok = true;
            for (int b = 0; b < kBlocksPerFile && ok; ++b) ok = ::write(fd, block.data(), block.size()) > 0;
            ::close(fd);
            if (!ok) break;
        }
}

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
    static bool filled = false;
    if (!filled) {
        filled = true;
        fill();
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
