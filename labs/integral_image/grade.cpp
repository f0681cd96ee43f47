// `integral_image grade`: checks every selected entry on every case, times the ones that pass,
// and prints the tables. All device work happens in isolated children (grader/isolate.hpp).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "args.hpp"
#include "checks.hpp"
#include "grading.hpp"
#include "json.hpp"
#include "labkit/device_info.hpp"
#include "labkit/errors.hpp"
#include "labkit/generators.hpp"
#include "labkit/image_io.hpp"
#include "labkit/table.hpp"
#include "report.hpp"
#include "verdict.hpp"

#ifndef LABKIT_SOURCE_DIR
#define LABKIT_SOURCE_DIR "."
#endif

namespace integral_image {
namespace {

using grader::Status;
using labkit::HostImage;
using u32 = std::uint32_t;

// Deliberately not multiples of any block, section or tile size; 1xN and Nx1 use a prime N so a
// single row or column spans several sections with a ragged end.
constexpr const char* kDefaultSizes = "1x1,1x4099,4099x1,7x5,31x33,255x257,1000x1000,1024x768,4097x2049,8192x8192";
constexpr const char* kQuickSizes = "1x1,1x4099,4099x1,7x5,31x33,255x257,1024x768";
constexpr const char* kDefaultPerfSizes = "1024,2048,4096,8192";
constexpr const char* kQuickPerfSizes = "1024,2048";
constexpr labkit::Pattern kCheckPatterns[] = {labkit::Pattern::random, labkit::Pattern::zeros, labkit::Pattern::full,
                                              labkit::Pattern::gradient};
constexpr double kDefaultTimeoutS = 60;  // of silence: the slowest honest case (8192^2 naive) is far below

std::vector<int> thread_sweep() {
    const int cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<int> t;
    for (int n = 1; n < cores; n *= 2) t.push_back(n);
    t.push_back(cores);
    return t;
}

std::vector<Case> make_cases(const std::vector<std::pair<int, int>>& sizes, std::uint64_t seed,
                             const std::string& photos_dir) {
    std::vector<Case> cases;
    auto add = [&](std::string name, labkit::GrayImage input) {
        HostImage<u32> want(input.width(), input.height());
        cpu_sequential(input.view(), want.view());
        cases.push_back({std::move(name), std::move(input), std::move(want)});
    };
    for (auto [w, h] : sizes)
        for (auto p : kCheckPatterns)
            add(std::to_string(w) + "x" + std::to_string(h) + " " + std::string(labkit::pattern_name(p)),
                labkit::generate(p, w, h, seed));
    std::error_code ec;
    std::vector<std::filesystem::path> photos;
    for (const auto& f : std::filesystem::directory_iterator(photos_dir, ec)) photos.push_back(f.path());
    std::sort(photos.begin(), photos.end());
    for (const auto& f : photos) add("photo " + f.filename().string(), labkit::load_gray(f.string()));
    return cases;
}

std::vector<TransposeCase> make_transpose_cases(const std::vector<std::pair<int, int>>& sizes, std::uint64_t seed) {
    std::vector<TransposeCase> cases;
    for (auto [w, h] : sizes) {
        TransposeCase c{std::to_string(w) + "x" + std::to_string(h) + " random", HostImage<u32>(w, h),
                        HostImage<u32>(h, w)};
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                c.input(x, y) = static_cast<u32>(labkit::mix64(seed ^ (static_cast<std::uint64_t>(y) * w + x)));
                c.want(y, x) = c.input(x, y);
            }
        cases.push_back(std::move(c));
    }
    return cases;
}

EntryResult verdict(const Entry& e, Status status, std::string detail) {
    EntryResult r;
    r.entry = e;
    r.status = status;
    r.detail = std::move(detail);
    return r;
}

EntryResult collect_check(const Entry& e, const grader::ChildOutcome& out, std::size_t total_cases) {
    EntryResult r;
    r.entry = e;
    r.cases_total = static_cast<int>(total_cases);
    std::string current;
    for (const auto& [key, value] : out.lines) {
        if (key == "begin") current = value;
        if (key == "result") {
            auto f = grader::split_tabs(value);
            f.resize(4);
            CaseResult c{f[0], f[1] == "pass" ? Status::pass : Status::fail, f[2], f[3]};
            (c.status == Status::pass ? r.cases_passed : r.cases_failed)++;
            if (c.status != Status::pass && r.detail.empty()) r.detail = c.name + ": " + c.detail;
            r.cases.push_back(std::move(c));
            current.clear();
        }
    }
    if (const auto todo = out.last("todo"); !todo.empty()) {
        r.status = Status::todo;
        r.detail = todo;
    } else if (out.end == grader::ChildOutcome::End::timed_out) {
        r.status = Status::timeout;
        r.detail = (current.empty() ? std::string() : current + ": ") + out.describe();
    } else if (out.end == grader::ChildOutcome::End::crashed) {
        r.status = Status::crash;
        r.detail = (current.empty() ? std::string() : current + ": ") + out.describe();
    } else if (const auto ex = out.last("exception"); !ex.empty()) {
        r.status = Status::error;
        r.detail = (current.empty() ? std::string() : current + ": ") + ex;
    } else if (out.exit_code != 0) {
        r.status = Status::error;
        r.detail = out.describe();
    } else {
        r.status = r.cases_failed > 0 ? Status::fail : Status::pass;
    }
    return r;
}

std::vector<PerfPoint> collect_perf(const Entry& e, const grader::ChildOutcome& out, std::string& problem) {
    std::vector<PerfPoint> points;
    for (const auto& [key, value] : out.lines) {
        if (key != "perf") continue;
        auto f = grader::split_tabs(value);
        f.resize(12);
        PerfPoint p;
        p.variant = e.name;
        p.kind = e.kind;
        p.width = std::stoi(f[0]);
        p.height = std::stoi(f[1]);
        p.threads = std::stoi(f[2]);
        p.ms = std::stod(f[3]);
        p.min_ms = std::stod(f[4]);
        p.max_ms = std::stod(f[5]);
        p.runs = std::stoi(f[6]);
        p.e2e_ms = f[7].empty() ? 0 : std::stod(f[7]);
        for (int i = 0; i < kPasses; ++i) p.pass_ms[i] = f[8 + i].empty() ? 0 : std::stod(f[8 + i]);
        points.push_back(p);
    }
    if (out.end != grader::ChildOutcome::End::exited || out.exit_code != 0)
        problem = out.last("exception").empty() ? out.describe() : out.last("exception");
    return points;
}

}  // namespace

int grade_main(int argc, char** argv) {
    grader::Args args("integral_image grade [options]",
                      "Checks every variant of the integral-image lab against cpu-sequential on awkward sizes and\n"
                      "patterns, then times the variants that pass. Each variant runs in its own process, so a\n"
                      "hang, crash or CUDA error is reported and grading goes on.");
    args.option("variants", "GLOB,...", "only these variants (shell wildcards, e.g. 'gpu-02*')", "*")
        .option("sizes", "WxH,...", "correctness sizes", kDefaultSizes)
        .option("perf-sizes", "N,...", "square sizes to time", kDefaultPerfSizes)
        .option("runs", "N", "timed runs per measurement (default: adaptive, 5 to 50)")
        .option("seed", "S", "seed of the random images (default: new each run, printed)")
        .option("no-perf", "", "check only")
        .option("no-check", "", "time only, without checking (for tuning; never for grading)")
        .option("timeout", "SEC", "kill a variant after this many seconds without progress", "60")
        .option("threads", "N,...", "OpenMP thread counts to sweep (default: 1, 2, 4, ... up to the cores)")
        .option("photos", "DIR", "real photos to check on (empty: none)", std::string(LABKIT_SOURCE_DIR) + "/datasets/photos")
        .option("diff-dir", "DIR", "where diff images of failing cases go", "results/diff")
        .option("label", "NAME", "what is graded, in titles and files (student, solution, ...)", "student")
        .option("json", "FILE", "write every result as JSON")
        .option("csv", "FILE", "write the timings as CSV (one row per variant and size)")
        .option("markdown", "FILE", "write the tables as Markdown, ready for a report")
        .option("quick", "", "small sizes only (a minute-long check while you work)");
    if (!args.parse(argc, argv)) return 0;
    if (!args.positional().empty()) throw grader::UsageError("unexpected argument '" + args.positional()[0] + "'");

    const bool quick = args.has("quick");
    std::vector<std::pair<int, int>> sizes;
    for (const auto& s : grader::split_list(args.has("sizes") ? args.get("sizes") : (quick ? kQuickSizes : kDefaultSizes)))
        sizes.push_back(grader::parse_size(s));
    PerfSettings perf;
    for (const auto& s : grader::split_list(args.has("perf-sizes") ? args.get("perf-sizes")
                                                                    : (quick ? kQuickPerfSizes : kDefaultPerfSizes)))
        perf.sizes.push_back(grader::parse_size(s).first);
    if (args.has("runs")) perf.policy.fixed_runs = static_cast<int>(grader::parse_int(args.get("runs"), "--runs"));
    if (args.has("threads")) {
        for (const auto& t : grader::split_list(args.get("threads")))
            perf.threads.push_back(static_cast<int>(grader::parse_int(t, "--threads")));
    } else {
        perf.threads = thread_sweep();
    }
    const std::uint64_t seed =
        args.has("seed") ? static_cast<std::uint64_t>(grader::parse_int(args.get("seed"), "--seed"))
                         : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ULL;
    perf.seed = seed;
    const double timeout = static_cast<double>(grader::parse_int(args.get("timeout"), "--timeout"));
    const std::string label = args.get("label");

    std::vector<Entry> entries;
    const auto globs = grader::split_list(args.get("variants"));
    for (auto& e : all_entries())
        for (const auto& g : globs)
            if (grader::glob_match(g, e.name)) {
                entries.push_back(std::move(e));
                break;
            }
    if (entries.empty()) throw grader::UsageError("no variant matches --variants '" + args.get("variants") + "'");

    Report report;
    report.lab = "integral_image";
    report.label = label;
    report.seed = seed;
    report.host = labkit::query_host();
    const bool any_gpu = std::any_of(entries.begin(), entries.end(), [](const Entry& e) { return e.kind != EntryKind::cpu; });
    if (any_gpu) {
        const auto probe = grader::run_isolated([&](grader::Reporter& r) { probe_device(!args.has("no-perf"), r); }, timeout);
        report.device = parse_device(probe);
    } else {
        report.device.unavailable_reason = "not needed";
    }
    print_environment(report);

    std::vector<Case> cases;
    std::vector<TransposeCase> transpose_cases;
    CheckSettings check_settings{args.get("diff-dir") + "/" + label, perf.threads.back()};
    if (!args.has("no-check")) {
        std::fprintf(stderr, "preparing %zu sizes x %zu patterns + photos (references by cpu-sequential)...\n",
                     sizes.size(), std::size(kCheckPatterns));
        cases = make_cases(sizes, seed, args.get("photos"));
        if (any_gpu) transpose_cases = make_transpose_cases(sizes, seed);
    }

    labkit::Progress progress("checking", static_cast<int>(entries.size()));
    for (const auto& e : entries) {
        progress.step(e.name);
        if (e.kind != EntryKind::cpu && !report.device.available) {
            report.results.push_back(verdict(e, Status::skipped, report.device.unavailable_reason));
            continue;
        }
        if (args.has("no-check")) {
            report.results.push_back(verdict(e, Status::pass, "not checked (--no-check)"));
            continue;
        }
        const auto& n_cases = e.kind == EntryKind::transpose ? transpose_cases.size() : cases.size();
        const auto out = grader::run_isolated(
            [&](grader::Reporter& r) { check_entry(e, cases, transpose_cases, check_settings, r); }, timeout,
            [&](const std::string& key, const std::string& value) {
                if (key == "begin") progress.detail(e.name + " " + value);
            });
        auto result = collect_check(e, out, n_cases);
        if (e.kind == EntryKind::cpu && e.variant->kind == Kind::cpu_sequential) result.detail = "the reference";
        report.results.push_back(std::move(result));
    }
    progress.done();
    print_correctness(report);

    if (!args.has("no-perf")) {
        std::vector<const Entry*> timed;
        for (const auto& r : report.results)
            if (r.status == Status::pass) timed.push_back(&r.entry);
        // Speedups need the baseline even when --variants left it out.
        const auto baseline = all_entries().front();
        if (std::none_of(timed.begin(), timed.end(), [&](const Entry* e) { return e->name == baseline.name; }))
            report.extra_entries.push_back(baseline);
        for (const auto& e : report.extra_entries) timed.insert(timed.begin(), &e);

        labkit::Progress perf_progress("timing", static_cast<int>(timed.size()));
        for (const Entry* e : timed) {
            perf_progress.step(e->name);
            const auto out = grader::run_isolated([&](grader::Reporter& r) { time_entry(*e, perf, r); }, timeout,
                                                  [&](const std::string& key, const std::string& value) {
                                                      if (key == "begin") perf_progress.detail(e->name + " " + value);
                                                  });
            std::string problem;
            auto points = collect_perf(*e, out, problem);
            if (!problem.empty()) report.perf_problems.push_back(e->name + ": " + problem);
            report.perf.insert(report.perf.end(), points.begin(), points.end());
        }
        perf_progress.done();
        print_performance(report);
    }

    write_files(report, args.get("json"), args.get("csv"), args.get("markdown"));
    const bool failed = std::any_of(report.results.begin(), report.results.end(),
                                    [](const EntryResult& r) { return grader::is_failure(r.status); });
    return failed ? 1 : 0;
}

}  // namespace integral_image
