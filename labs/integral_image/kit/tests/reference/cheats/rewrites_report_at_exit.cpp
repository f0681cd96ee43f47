// CHEAT, on purpose: cpu_openmp that does no work but registers an atexit handler which finds
// the grader's --json and --markdown paths (in its own command line, or its parent's) and
// overwrites them with an all-pass report. When the student ran inside the grader's process,
// this rewrote the final report. Now the runner's exit comes before the grader writes its
// reports, and the runner is never told where they go: it must not pass. Replaces cpu_openmp.cpp.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {
namespace {

std::vector<std::string> command_line(const std::string& pid) {
    std::ifstream in("/proc/" + pid + "/cmdline");
    std::vector<std::string> args;
    for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
    return args;
}

void rewrite_reports() {
    const std::string fake =
        R"({"lab": "integral_image", "label": "student", "environment": {}, "variants": [)"
        R"({"name": "cpu-openmp", "kind": "cpu", "reference": false, "status": "pass", "detail": "",)"
        R"( "cases_passed": 43, "cases_failed": 0, "cases_total": 43}], "cases": [], "performance": []})";
    for (const auto& pid : {std::string("self"), std::to_string(::getppid())}) {
        const auto args = command_line(pid);
        for (std::size_t i = 0; i + 1 < args.size(); ++i) {
            if (args[i] == "--json") std::ofstream(args[i + 1]) << fake;
            if (args[i] == "--markdown") std::ofstream(args[i + 1]) << "| cpu-openmp | PASS |\n";
        }
    }
}

}  // namespace

void cpu_openmp(Input, Output, int) {
    static const bool registered = std::atexit(rewrite_reports) == 0;
    (void)registered;
}

}  // namespace integral_image
