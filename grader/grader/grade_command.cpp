#include "grade_command.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "labkit/generators.hpp"
#include "labkit/host_memory.hpp"
#include "labkit/image_io.hpp"

#ifndef LABKIT_SOURCE_DIR
#error "meson passes LABKIT_SOURCE_DIR: the kit's source folder (for datasets/photos)"
#endif

namespace grader {
namespace {

// The OpenMP thread counts grade sweeps by default: 1, 2, 4, ... up to the cores.
std::vector<int> thread_sweep() {
    const int cores = labkit::cores();
    std::vector<int> t;
    for (int n = 1; n < cores; n *= 2) t.push_back(n);
    t.push_back(cores);
    return t;
}

}  // namespace

GradeCommand::GradeCommand(CLI::App& app, RunnerOptions& runner, const LabDescription& lab, const Exercises& exercises)
    : runner_(runner), lab_(lab), exercises_(exercises), photos_(std::string(LABKIT_SOURCE_DIR) + "/datasets/photos"),
      cpu_max_gflop_(kCpuPerfMaxFlops / kFlopsPerGflop) {
    g_.diff_dir = "results/diff";
    g_.label = "student";
    cmd_ = app.add_subcommand(
        "grade",
        "Checks every variant against the reference on awkward sizes and patterns, then times the variants\n"
        "that pass. Each variant runs in its own runner process, so a hang, crash or CUDA error is a verdict\n"
        "and grading goes on.");
    runner_.add_to(cmd_, lab_, kGroup);
    cmd_->add_option("--variants", globs_, "only these variants (shell wildcards, e.g. 'gpu-02*'), comma-separated")->capture_default_str()
        ->type_name("GLOB,...")
        ->group(kGroup);
    sizes_opt_ =
        cmd_->add_option("--sizes", sizes_, "correctness sizes: WxH,...; 'quick' and 'default' stand for those lists")
            ->capture_default_str()
            ->type_name("WxH,...")
        ->group(kGroup);
    const std::string default_perf = lab_.perf_sizes.empty() ? join_commas(kDefaultPerfSizes) : join_commas(lab_.perf_sizes);
    cmd_->add_option("--perf-sizes", perf_sizes_,
                          "square sizes to time, N,... (default " + default_perf + "; --quick " + join_commas(kQuickPerfSizes) + ")")
        ->type_name("N,...")
        ->group(kGroup);
    for (const auto& e : exercises_) {
        const auto info = e->info();
        for (const auto& p : info.perf_params) {
            if (p.empty()) continue;
            const bool by_default = std::ranges::find(info.default_perf_params, p) != info.default_perf_params.end();
            labels_ += (labels_.empty() ? "" : ", ") + p + (by_default ? "" : " (timed only when named)");
        }
    }
    cmd_->add_option("--perf-params", perf_params_,
                          labels_.empty() ? std::string("only these timed parameters (this lab has none: ignored)")
                                         : "only these timed parameters, LABEL,... (of: " + labels_ + ")")
        ->type_name("LABEL,...")
        ->group(kGroup);
    for (const auto& p : labkit::kPatterns) pattern_names_ += (pattern_names_.empty() ? "" : ", ") + std::string(p.name);
    cmd_->add_option("--perf-patterns", perf_patterns_,
                          "time on these images instead of the lab's own, NAME,... (of: " + pattern_names_ +
                              "), e.g. a one-valued image for a histogram")
        ->type_name("NAME,...")
        ->group(kGroup);
    using labkit::RunPolicy;
    cmd_->add_option("--runs", runs_, "timed runs per measurement (default: adaptive, " + std::to_string(RunPolicy::kMinRuns) + " to " +
                                              std::to_string(RunPolicy::kMaxRuns) + "; --quick " + std::to_string(kQuickRuns) +
                                              "; a CPU measurement goes on until its median settles, up to " +
                                              std::to_string(RunPolicy::kMaxSettleRuns) + " runs)")->check(kPositive)
        ->type_name("N")
        ->group(kGroup);
    seed_opt_ = cmd_->add_option("--seed", seed_, "seed of the random images of the checked cases (default: new each run, printed); every timed run's image is drawn anew when it starts, whatever the seed")
        ->type_name("S")
        ->group(kGroup);
    cmd_->add_flag("--no-perf", no_perf_, "check only")
        ->group(kGroup);
    cmd_->add_flag("--no-check", no_check_, "time only, without checking (for tuning; a class run times this way only what its check passed)");
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", kDeadlineFactor);
    cmd_->add_option("--timeout", runner_.timeout,
                          "kill a variant after this many seconds without progress: the most any case waits. Each case of a "
                          "native variant has a deadline of its own, " + std::string(factor) + "x the reference's time on it, at "
                          "least " + seconds_text(kDeadlineFloorS) + " s (a CPU variant: " + seconds_text(kCpuDeadlineFloorS) + " s), " + seconds_text(kRunnerStartS) +
                          " s more on the first (the runner's start), " + seconds_text(kHungStepS) +
                          " s once a configuration of the same step has hung (every GPU case, once the GPU variants have hung for " +
                          seconds_text(kGpuHangBudgetS) + " s; a hung step's other configurations are then not run); emulated, "
                          "simulated and Python-track variants wait this long")
        ->capture_default_str()
        ->check(kPositive)
        ->type_name("SEC")
        ->group(kGroup);
    cmd_->add_option("--threads", threads_, "OpenMP thread counts to sweep, N,... (default: 1, 2, 4, ... up to the cores)")
        ->type_name("N,...")
        ->group(kGroup);
    cmd_->add_option("--cpu-max-gflop", cpu_max_gflop_,
                          "leave out CPU timings (the sequential reference's included) whose one call would exceed "
                          "this many GFLOP; raise it to time the OpenMP variants on large filters")
        ->capture_default_str()
        ->check(kPositive)
        ->type_name("G")
        ->group(kGroup);
    cmd_->add_option("--photos", photos_,
                          "a folder of real photos to check on (empty: none); --perf-patterns photo times on its first")
        ->capture_default_str()
        ->type_name("DIR")
        ->group(kGroup);
    cmd_->add_option("--max-case-pixels", g_.cases.max_pixels,
                          "leave out every case larger than this many pixels, the lab's own cases too (with "
                          "--python-simulate: Numba's simulator runs a few thousand pixels a second)")
        ->check(CLI::PositiveNumber)
        ->type_name("N")
        ->group(kGroup);
    cmd_->add_option("--cases-cache", g_.cases.cache_dir,
                          "keep the cases and their expected outputs in this folder (made private, 0700), and reuse "
                          "them when another grading asks for the same ones (same seed, sizes, photos and grader)");
    cmd_->add_option("--kept-timings", g_.kept_timings,
                          "keep the timings of the grader's own rows (each exercise's reference) in this folder (made "
                          "private, 0700), and reuse them when another grading asks for the same ones (same grader, "
                          "machine and timing settings)");
    const std::string side = std::to_string(kDiffMaxSide);
    cmd_->add_option("--diff-dir", g_.diff_dir,
                          "the folder diff images of failing cases go into, as given (empty: none); one per size "
                          "class of a variant, at most " + side + "x" + side + " px")
        ->capture_default_str();
    cmd_->add_option("--label", g_.label, "what is graded, in titles and files (student, solution, ...)")->capture_default_str();
    cmd_->add_option("--json", g_.json, "write every result as JSON");
    cmd_->add_option("--csv", g_.csv, "write the timings as CSV (one row per variant and size)");
    cmd_->add_option("--markdown", g_.markdown, "write the tables as Markdown, ready for a report");
    cmd_->add_flag("--quick", quick_, "small sizes only, and one timing per variant: one size, the cores, the first "
                                         "pattern and timed parameters, " + std::to_string(kQuickRuns) +
                                         " runs (a check of seconds while you work)")
        ->group(kGroup);
    cmd_->add_option("--sanitize", sanitize_tool_,
                          "check every GPU variant under compute-sanitizer --tool TOOL (memcheck, racecheck, synccheck, "
                          "initcheck), in the same sandbox; its findings go into every report. Slow: use small --sizes");
    cmd_->add_option("--sanitizer", sanitizer_path_,
                          "the compute-sanitizer program (default: from PATH, else /usr/local/cuda/bin/compute-sanitizer)");
    cmd_->add_flag("--emulate", g_.emulate,
                        "the runner (--runner) is an emulated one: its GPU variants run on the CPU, each checked under three "
                        "orders of a block's threads; no GPU is probed or used, GPU variants are not timed, and one that "
                        "passes reads 'pass (emulated)', never a GPU's pass (./labkit grade --emulate builds the runner). An image with a "
                        "side of " + std::to_string(kEmulatedLargeSide) + " or more checks them on the lab's large patterns only");
    cmd_->add_flag("--validate-only", validate_only_,
                        "check the options (sizes, variants, output paths) and stop: exit 0 when they are good, 2 when not");
}

int GradeCommand::print_options() const {
    auto list = nlohmann::ordered_json::array();
    for (const CLI::Option* o : cmd_->get_options([](const CLI::Option* o) { return o->get_group() == kGroup; }))
        list.push_back({{"name", o->get_name()},
                        {"value", o->get_expected_max() > 0},
                        {"type", o->get_type_name()},
                        {"default", o->get_default_str()},
                        {"help", o->get_description()}});
    std::printf("%s\n", list.dump(1).c_str());
    return 0;
}

GradeOptions GradeCommand::settle(const Sandbox& sandbox) {
    GradeOptions g = g_;
    g.runner = runner_.runner;
    g.sandbox = &sandbox;
    g.timeout_s = runner_.timeout;
    g.check = !no_check_;
    g.time = !no_perf_;
    g.variant_globs = split_commas(globs_);
    g.cases.sizes = parse_sizes(quick_ && sizes_opt_->count() == 0 ? "quick" : sizes_);  // --sizes wins
    g.cases.photos_dir = photos_;
    g.cases.seed = *seed_opt_ ? seed_
                             : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) %
                                   1000000007ULL;
    g.perf.seed = g.cases.seed;
    if (!perf_sizes_.empty()) {
        g.perf.sizes = to_ints(split_commas(perf_sizes_), "--perf-sizes");
    } else if (quick_) {
        g.perf.sizes.assign(kQuickPerfSizes.begin(), kQuickPerfSizes.end());
    } else if (!lab_.perf_sizes.empty()) {
        g.perf.sizes = lab_.perf_sizes;
    } else {
        g.perf.sizes.assign(kDefaultPerfSizes.begin(), kDefaultPerfSizes.end());
    }
    if (!labels_.empty()) g.perf.params = split_commas(perf_params_);  // a lab without labels ignores it
    for (const auto& l : g.perf.params) {
        bool known = false;
        for (const auto& e : exercises_)
            for (const auto& p : e->info().perf_params) known = known || p == l;
        if (!known) throw std::invalid_argument("--perf-params: no timed parameters '" + l + "' (of: " + labels_ + ")");
    }
    for (const auto& name : split_commas(perf_patterns_))  // each once: a name given twice is timed once
        if (std::ranges::find(g.perf.patterns, name) == g.perf.patterns.end()) g.perf.patterns.push_back(name);
    for (const auto& name : g.perf.patterns)
        if (!labkit::parse_pattern(name))
            throw std::invalid_argument("--perf-patterns: no pattern '" + name + "' (of: " + pattern_names_ + ")");
    const std::string photo_name(labkit::pattern_name(labkit::Pattern::photo));
    const auto names_photo = [&](const std::vector<std::string>& names) {
        return std::ranges::find(names, photo_name) != names.end();
    };
    bool times_photo = names_photo(g.perf.patterns);
    for (const auto& e : exercises_) times_photo = times_photo || (g.perf.patterns.empty() && names_photo(e->info().perf_patterns));
    times_photo = times_photo && !no_perf_;
    if (!no_check_ || times_photo) {
        std::string shown;  // what the folder holds besides its images, hidden files aside
        for (const auto& name : check_photos(photos_))
            if (name.front() != '.') shown += (shown.empty() ? "" : ", ") + name;
        std::string extensions;
        for (const auto ext : labkit::kImageExtensions) extensions += (extensions.empty() ? "" : " ") + std::string(ext);
        if (!shown.empty())
            std::fprintf(stderr, "note: --photos %s: left out what is not named as an image (%s): %s\n", photos_.c_str(),
                         extensions.c_str(), shown.c_str());
    }
    if (times_photo) {
        const auto found = photos_.empty() ? std::vector<std::filesystem::path>{} : labkit::images_in(photos_);
        if (found.empty())
            throw std::invalid_argument("--perf-patterns " + photo_name + ": no image (" + std::string(labkit::kImageFormats) +
                                        ") in --photos '" + photos_ + "'");
        g.perf.photo = found.front().string();
        labkit::use_photo(labkit::load_gray(g.perf.photo));  // the grader's half: the reference and the checks
    }
    // --quick_ times one thread count, the cores (what --threads_ does not name); and of each
    // exercise one pattern and one set of timed parameters (PerfSettings::first_only).
    g.perf.threads = !threads_.empty() ? to_ints(split_commas(threads_), "--threads")
                     : quick_          ? std::vector<int>{labkit::cores()}
                                      : thread_sweep();
    g.perf.first_only = quick_;
    g.perf.policy.fixed_runs = runs_ > 0 ? runs_ : quick_ ? kQuickRuns : 0;
    g.perf.cpu_max_flops = cpu_max_gflop_ * kFlopsPerGflop;
    for (const int n : g.perf.sizes) {
        try {
            labkit::check_image_size(n, n, "--perf-sizes " + std::to_string(n));
        } catch (const std::exception& e) {
            throw std::invalid_argument(e.what());
        }
    }
    return g;
}

int GradeCommand::run(const Sandbox& sandbox) {
    GradeOptions g = settle(sandbox);
    std::optional<Sanitizer> sanitizer;
    if (!sanitize_tool_.empty()) {
        if (no_check_) throw std::invalid_argument("--sanitize watches the checks: it cannot go with --no-check");
        if (g.emulate) throw std::invalid_argument("--sanitize watches a GPU: it cannot go with --emulate");
        sanitizer = Sanitizer::open(sanitize_tool_, sanitizer_path_);
        g.sanitizer = &*sanitizer;
    }
    check_output_path(g.json, "--json");
    check_output_path(g.csv, "--csv");
    check_output_path(g.markdown, "--markdown");
    // Every chosen variant must exist: asked of the runner_, before anything is written.
    validate_variants(g, exercises_);
    if (validate_only_) return 0;
    return grade(lab_, exercises_, g);
}

}  // namespace grader
