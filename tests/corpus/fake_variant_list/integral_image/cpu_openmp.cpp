// CORPUS fake_variant_list — when the runner is asked to "list" its variants, a static
// initializer first writes 100,000 fake variant lines into descriptors 3 to 20 (where the report
// pipe is); at its first call it kills its parent (the grader), so that labkit has to stand in
// for the missing report with the variants it was told about. The lab's wall-clock limit was
// computed from that list (100,000 lines gave 139 days) and a stand-in report had a row per
// fake variant. Limits must be set by the kit, and variant names come from the kit: any verdict,
// but the class files name only the kit's variants.
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "integral_image.hpp"

namespace integral_image {
namespace {

bool asked_to_list() {
    std::ifstream in("/proc/self/cmdline");
    std::string arg;
    std::getline(in, arg, '\0');  // the program
    return std::getline(in, arg, '\0') && arg == "list";
}

const bool listed = [] {
    if (!asked_to_list()) return false;
    std::string lines;
    constexpr int kFakes = 100000;
    for (int i = 0; i < kFakes; ++i)
        lines += "variant\tintegral_image\tcpu-openmp-fake-" + std::to_string(i) + "\tcpu\tnot a variant of the kit\n";
    for (int fd = 3; fd <= 20; ++fd) [[maybe_unused]] const auto n = ::write(fd, lines.data(), lines.size());
    return true;
}();

}  // namespace

void cpu_openmp(Input, Output, int) {
    if (const int parent = ::getppid(); parent > 1) ::kill(parent, SIGKILL);
}

}  // namespace integral_image
