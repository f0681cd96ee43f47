// The lab's command: `integral_image list | list-files | grade | run`. The same kit code is
// linked with the starter (labs/), a submission, or the solution (solutions/).
#include <cstdio>
#include <cstring>
#include <exception>

#include "args.hpp"
#include "checks.hpp"
#include "grading.hpp"
#include "labkit/errors.hpp"

namespace {

constexpr const char* kUsage =
    "usage: integral_image COMMAND [options]\n\n"
    "Lab 1 of GPU Labkit: the integral image (summed-area table).\n\n"
    "commands:\n"
    "  list          the variants, in teaching order: name, kind, summary\n"
    "  list-files    the files a student edits (what a submission hands in)\n"
    "  grade         check every variant against cpu-sequential, then time it (grade --help)\n"
    "  run           run one variant on one image and write a picture (run --help)\n";

int list() {
    for (const auto& e : integral_image::all_entries())
        std::printf("%s\t%s\t%s\n", e.name.c_str(), integral_image::kind_name(e.kind), e.summary.c_str());
    return 0;
}

int list_files() {
    for (const auto f : integral_image::student_files()) std::printf("%.*s\n", static_cast<int>(f.size()), f.data());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string command = argv[1];
    try {
        if (command == "list") return list();
        if (command == "list-files") return list_files();
        if (command == "grade") return integral_image::grade_main(argc - 2, argv + 2);
        if (command == "run") return integral_image::run_main(argc - 2, argv + 2);
        std::fprintf(stderr, "integral_image: unknown command '%s'\n\n%s", command.c_str(), kUsage);
        return 2;
    } catch (const grader::UsageError& e) {
        std::fprintf(stderr, "integral_image %s: %s\n", command.c_str(), e.what());
        return 2;
    } catch (const labkit::NotImplemented& e) {
        std::fprintf(stderr, "integral_image %s: TODO: %s\n", command.c_str(), e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "integral_image %s: error: %s\n", command.c_str(), e.what());
        return 1;
    }
}
