// CORPUS writes_dev_shm_and_root — at its first call, tries to write a file into /, /dev and
// /dev/shm (bubblewrap's own tmpfs mounts, as large as half the host's memory): 3 GiB into
// /dev/shm came out of the host's memory. / and /dev are now read-only in the sandbox and
// /dev/shm is as small as /tmp, so every write fails early; it throws what happened: ERROR.
// Safety: 3 GiB at most per folder, none while a file system has less than 8 GiB free, and only
// into files named corpus-fill-*, removed at the end.
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    constexpr std::size_t kCap = std::size_t{3} << 30;
    const std::vector<char> chunk(kChunk, 'x');
    std::string said;
    for (const char* dir : {"/", "/dev/", "/dev/shm/"}) {
        struct statvfs fs {};
        constexpr unsigned long long kReserve = 8ull << 30;
        if (::statvfs(dir, &fs) == 0 && static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize < kReserve + kCap) {
            said += std::string(" ") + dir + ": too little room to try;";
            continue;
        }
        const std::string path = std::string(dir) + "corpus-fill-" + std::to_string(::getpid());
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) {
            said += std::string(" ") + dir + ": " + std::strerror(errno) + ";";
            continue;
        }
        std::size_t written = 0;
        int err = 0;
        while (written < kCap) {
            const ssize_t n = ::write(fd, chunk.data(), kChunk);
            if (n <= 0) {
                err = errno;
                break;
            }
            written += static_cast<std::size_t>(n);
        }
        ::close(fd);
        ::unlink(path.c_str());
        said += std::string(" ") + dir + ": " + std::to_string(written >> 20) + " MiB" +
                (err ? std::string(", then ") + std::strerror(err) : std::string()) + ";";
    }
    throw std::runtime_error("wrote" + said);
}

}  // namespace integral_image
