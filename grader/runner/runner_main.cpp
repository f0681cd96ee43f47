#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "labkit/errors.hpp"
#include "labkit/generators.hpp"
#include "labkit/gpu_limits.hpp"
#include "labkit/host_memory.hpp"
#include "runner.hpp"
#if defined(LABKIT_EMULATED)
#include <cuda_runtime_api.h>  // emulate/include: the block scheduler's schedule
#endif

namespace runner {
using namespace protocol;
namespace {

constexpr int kUsageExit = 2;
constexpr int kErrorExit = 3;

std::vector<int> to_ints(const std::string& s) {
    std::vector<int> out;
    for (const auto& item : split_commas(s)) out.push_back(std::stoi(item));
    return out;
}

std::vector<labkit::Pattern> to_patterns(const std::string& s) {
    std::vector<labkit::Pattern> out;
    for (const auto& name : split_commas(s)) {
        const auto p = labkit::parse_pattern(name);
        if (!p) throw std::invalid_argument("--patterns: no pattern '" + name + "'");
        out.push_back(*p);
    }
    return out;
}

const RunnerExercise& find(const RunnerExercises& exercises, const std::string& exercise, const std::string& variant) {
    for (const auto& e : exercises)
        if (e->name() == exercise && e->has(variant)) return *e;
    throw std::invalid_argument("no variant '" + variant + "' in exercise '" + exercise + "'");
}

}  // namespace

std::string stub_offset(const void* stub) {
    Dl_info info{};
    if (stub == nullptr || dladdr(stub, &info) == 0) return "-";
    char hex[2 * sizeof(std::uintptr_t) + 1];
    std::snprintf(hex, sizeof hex, "%jx",
                  static_cast<std::uintmax_t>(reinterpret_cast<std::uintptr_t>(stub) -
                                              reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
    return hex;
}

int runner_main(int argc, char** argv, const RunnerExercises& exercises) {
    labkit::keep_freed_memory();
    CLI::App app{"GPU Labkit runner: runs one variant of the student's (or the solution's) code on the cases the\n"
                 "grader wrote, and hands back answers and timings. Started by the grader, not by people.",
                 argc > 0 ? argv[0] : "runner"};
    app.require_subcommand(1);
    int report_fd = 1;  // stdout, for a person; the grader passes its pipe
    std::string exercise, variant, manifest, answers, sizes, thread_list = "1", patterns = "random", params;
    int threads = 1, runs = 0;

    auto* list = app.add_subcommand("list", "the variants: exercise, name, cpu|gpu, summary");
    auto* check = app.add_subcommand("check", "answer every case of a manifest");
    auto* time = app.add_subcommand("time", "time a variant at square sizes (asks each run's seed on stdin)");
    auto* dry = app.add_subcommand("dry", "without a GPU: is a GPU variant written (compiled) or a TODO?");
    int as_sm = 0;
    dry->add_option("--as", as_sm,
                    "stand for a GPU of this compute capability (75 for sm_75): its limits, and its answers to "
                    "code that asks the device for them (default: the build's target)")
        ->check(CLI::Range(labkit::kOldestCc, std::numeric_limits<int>::max()));
    for (auto* cmd : {check, time, dry}) {
        cmd->add_option("EXERCISE", exercise)->required();
        cmd->add_option("VARIANT", variant)->required();
        cmd->add_option("--report-fd", report_fd, "where the report lines go");
    }
    list->add_option("--report-fd", report_fd, "where the report lines go");
    check->add_option("--manifest", manifest, "the cases (written by the grader)")->required();
    check->add_option("--answers", answers, "the folder for the answers (made by the grader)")->required();
    check->add_option("--threads", threads, "OpenMP threads for CPU variants");
    std::string digest, only;
    check->add_option("--digest", digest, "cases whose GPU answer is sent as a digest (no file), N,...");
    check->add_option("--only", only, "answer only these cases, N,... (default: all)");
#if defined(LABKIT_EMULATED)
    std::string schedule = "in-order";
    check->add_option("--schedule", schedule,
                      "the order of a block's threads between barriers: in-order, reversed or shuffled:SEED")
        ->capture_default_str();
#endif
    time->add_option("--sizes", sizes, "square sizes, N,...")->required();
    time->add_option("--patterns", patterns, "shared patterns of the timed images, NAME,... (default random)");
    time->add_option("--threads", thread_list, "thread counts for CPU variants, N,...");
    time->add_option("--params", params, "labels of the timed parameters, LABEL,... (default: all)");
    time->add_option("--runs", runs, "timed runs (default: adaptive)");
    double cpu_max_gflop = kCpuPerfMaxFlops / kFlopsPerGflop;
    time->add_option("--cpu-max-gflop", cpu_max_gflop, "leave out CPU timings whose one call would exceed this")
        ->capture_default_str();
    std::string timed_answers, photo;
    time->add_option("--answers", timed_answers, "the folder for the checked output of each measurement");
    time->add_option("--photo", photo, "the photo pattern's photo: 8-bit gray, as the grader writes inputs");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : kUsageExit;
    }
    Reporter report(report_fd);
    try {
        if (*list) {
            for (const auto& e : exercises) e->list(report);
        } else if (*check) {
#if defined(LABKIT_EMULATED)
            labkit::emu::set_schedule(schedule);
#endif
            const auto to_cases = [](const std::string& list) {
                std::vector<std::size_t> cases;
                for (const int i : to_ints(list)) cases.push_back(static_cast<std::size_t>(i));
                return cases;
            };
            find(exercises, exercise, variant).check(variant, {manifest, answers, threads, to_cases(digest), to_cases(only)}, report);
        } else if (*dry) {
            find(exercises, exercise, variant).dry(variant, as_sm, report);
        } else {
            TimeRequest r{to_patterns(patterns), split_commas(params), to_ints(sizes), to_ints(thread_list), {},
                          timed_answers};
            r.policy.fixed_runs = runs;
            r.cpu_max_flops = cpu_max_gflop * kFlopsPerGflop;
            if (!photo.empty()) labkit::use_photo(read_raw<std::uint8_t>(photo));
            find(exercises, exercise, variant).time(variant, r, report);
        }
        return 0;
    } catch (const labkit::NotImplemented& e) {
        report.send("todo", e.what());
        return 0;
    } catch (const labkit::NeedsNewerGpu& e) {
        report.send("skip", e.what());  // more than this GPU gives (launch_check.cpp): a verdict
        return 0;
    } catch (const std::exception& e) {
        report.send("error", e.what());
        return kErrorExit;
    }
}

}  // namespace runner
