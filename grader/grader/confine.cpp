// labkit-confine: a command in a control group of its own (grader/grader/cgroup.hpp), for what labkit
// runs outside a grader: a submission's compile. The same groups, limits and clean-up as the
// grader's runner calls, from the same code.
//   labkit-confine --check                                   what this machine offers (one line);
//                                                            exit 0 when groups can be made, 1 when not
//   labkit-confine --processes N --memory BYTES -- CMD ...   runs CMD in a new group; exits as CMD
//                                                            does (128 + N for signal N), and says on
//                                                            stderr which limit of the group it hit
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "cgroup.hpp"

namespace {

constexpr int kUsageExit = 2;
constexpr int kNotStarted = 127;
constexpr int kSignalExitBase = 128;

int usage() {
    std::fprintf(stderr, "usage: labkit-confine --check\n"
                         "       labkit-confine --processes N --memory BYTES -- COMMAND [ARGS...]\n");
    return kUsageExit;
}

// A whole positive number, or -1.
long long parse_count(const char* text) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text, &end, 10);
    return errno == 0 && end && *end == '\0' && v > 0 ? v : -1;
}

}  // namespace

int main(int argc, char** argv) {
    const auto& groups = protocol::ControlGroups::here();
    if (argc == 2 && std::strcmp(argv[1], "--check") == 0) {
        std::printf("%s\n", groups.description().c_str());
        return groups.available() ? 0 : 1;
    }
    protocol::GroupLimits limits;
    int i = 1;
    for (; i + 1 < argc && std::strcmp(argv[i], "--") != 0; i += 2) {
        const long long v = parse_count(argv[i + 1]);
        if (v < 0) return usage();
        if (std::strcmp(argv[i], "--processes") == 0) limits.processes = static_cast<unsigned>(v);
        else if (std::strcmp(argv[i], "--memory") == 0) limits.memory_bytes = static_cast<std::uintmax_t>(v);
        else return usage();
    }
    if (i >= argc || std::strcmp(argv[i], "--") != 0 || i + 1 >= argc) return usage();
    std::vector<char*> command(argv + i + 1, argv + argc);
    command.push_back(nullptr);
    try {
        const auto group = groups.make(limits);
        const pid_t pid = ::fork();
        if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
        if (pid == 0) {
            if (group->join()) ::execvp(command[0], command.data());
            ::_exit(kNotStarted);
        }
        // A signal meant for the command (labkit's timeout) ends it and its group: the
        // destructor kills what is left.
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : kSignalExitBase + WTERMSIG(status);
        if (const auto hit = group->limit_hit(); !hit.empty() && code != 0)
            std::fprintf(stderr, "labkit-confine: the command %s\n", hit.c_str());
        return code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "labkit-confine: %s\n", e.what());
        return kNotStarted;
    }
}
