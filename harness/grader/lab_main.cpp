#include "lab_main.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <cstdio>

#include "grade.hpp"
#include "labkit/errors.hpp"
#include "labkit/generators.hpp"
#include "labkit/host_memory.hpp"
#include "labkit/image_io.hpp"
#include "session.hpp"

#ifndef LABKIT_SOURCE_DIR
#error "meson passes LABKIT_SOURCE_DIR: the kit's source folder (for datasets/photos)"
#endif

namespace grader {
using namespace protocol;
namespace {

constexpr int kUsageExit = 2;
// The `grade` options that choose what is checked and timed. A front end (./labkit grade,
// grade-all, bench) hands them on as given: it learns them from `options`, so this file is their
// only definition. The other options of `grade` (the runner, the sandbox, where reports go) are
// the front end's to set.
const std::string kGradingGroup = "Grading";
constexpr double kDefaultTimeoutS = 60;  // of silence: the slowest honest case (8192^2 naive) is far below
constexpr int kContractSide = 64;        // `contract`'s input size unless given (the output's size follows it)

// Counts and seconds: 0, negative or not a number is refused, with a message that says so.
const CLI::Validator kPositive(
    [](std::string& text) {
        try {
            std::size_t used = 0;
            const double value = std::stod(text, &used);
            if (std::isfinite(value) && value > 0 && used == text.size()) return std::string();
        } catch (const std::exception&) {
        }
        return "must be a finite number above 0, not '" + text + "'";
    },
    "> 0", "positive");

std::vector<int> thread_sweep() {
    const int cores = labkit::cores();
    std::vector<int> t;
    for (int n = 1; n < cores; n *= 2) t.push_back(n);
    t.push_back(cores);
    return t;
}

// An output file must be writable before any work is done: its folder exists and is writable,
// and the path is not a folder. Throws std::invalid_argument naming the option.
void check_output_path(const std::string& path, const std::string& option) {
    if (path.empty()) return;
    namespace fs = std::filesystem;
    const fs::path p(path);
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (fs::is_directory(p, ec)) throw std::invalid_argument(option + " " + path + ": is a folder, not a file");
    if (!fs::is_directory(dir, ec)) throw std::invalid_argument(option + " " + path + ": no folder " + dir.string());
    if (::access(dir.c_str(), W_OK) != 0) throw std::invalid_argument(option + " " + path + ": cannot write into " + dir.string());
}

std::string lowercase_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

std::vector<int> to_ints(const std::vector<std::string>& items, const std::string& what) {
    std::vector<int> out;
    for (const auto& i : items) {
        std::size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(i, &used);
        } catch (const std::exception&) {
        }
        if (used != i.size() || v < 1) throw std::invalid_argument(what + ": '" + i + "' is not a positive whole number");
        out.push_back(v);
    }
    return out;
}

// `options`: the Grading group of `grade`, for a front end to offer and hand on unchanged.
int print_grading_options(const CLI::App& grade) {
    auto list = nlohmann::ordered_json::array();
    for (const CLI::Option* o : grade.get_options([](const CLI::Option* o) { return o->get_group() == kGradingGroup; }))
        list.push_back({{"name", o->get_name()},
                        {"value", o->get_expected_max() > 0},
                        {"type", o->get_type_name()},
                        {"default", o->get_default_str()},
                        {"help", o->get_description()}});
    std::printf("%s\n", list.dump(1).c_str());
    return 0;
}

// The output's width and height of an exercise as affine functions of the input's, {a, b, c}:
// out = a * width + b * height + c (same size, transposed, one larger: every contract's), found
// from three sizes and checked on a fourth, so that a runner without the contract (the Python
// track's) sizes its outputs as the contract does.
nlohmann::ordered_json output_rule(const GraderExercise& e, const std::map<std::string, std::string>& options) {
    const auto at = [&](int w, int h) { return e.facts(w, h, options).output_size; };
    const auto base = at(1, 1), wider = at(2, 1), taller = at(1, 2);
    // {a, b, c} of one side, from its value at 1x1, 2x1 and 1x2.
    const auto rule = [](int one, int two_wide, int two_tall) {
        const int a = two_wide - one, b = two_tall - one;
        return std::array<int, 3>{a, b, one - a - b};
    };
    const auto w = rule(base.first, wider.first, taller.first), h = rule(base.second, wider.second, taller.second);
    constexpr int kW = 7, kH = 5;  // a size the three above do not determine
    const auto check = at(kW, kH);
    if (check.first != w[0] * kW + w[1] * kH + w[2] || check.second != h[0] * kW + h[1] * kH + h[2])
        throw std::logic_error(e.info().name + ": its output size is not an affine function of the input's");
    return {{"width", w}, {"height", h}};
}

// `contract`: each exercise's facts for one input size and `run`'s options, as JSON.
std::string contract_json(const Exercises& exercises, int width, int height,
                          const std::map<std::string, std::string>& options) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& e : exercises) {
        const auto f = e->facts(width, height, options);
        auto params = nlohmann::ordered_json::object();
        for (const auto& [name, values] : f.params) params[name] = values;
        list.push_back({{"exercise", f.name},
                        {"in", f.in},
                        {"out", f.out},
                        {"input", {width, height}},
                        {"output", {f.output_size.first, f.output_size.second}},
                        {"output_rule", output_rule(*e, options)},
                        {"comparison", {{"abs", f.comparison.abs}, {"rel", f.comparison.rel}}},
                        {"params", params}});
    }
    return list.dump(1);
}

struct Commands {
    const LabDescription& lab;
    const Exercises& exercises;

    int list(const RunnerSpec& program, const Sandbox& sandbox, double timeout) const {
        const WorkDir work(0);
        const Runner runner(program, sandbox, work.path(), timeout);
        for (const auto& v : list_variants(runner, exercises))
            std::printf("%s\t%s\t%s\t%s\t%s\n", v.name.c_str(), v.kind.c_str(), v.summary.c_str(), v.exercise.c_str(),
                        v.reference ? "reference" : v.peer ? "peer" : "student");
        return 0;
    }

    int list_files() const {
        for (const auto& f : split_commas(lab.student_files)) std::printf("%s\n", f.c_str());
        return 0;
    }

    int run(const RunnerSpec& program, const Sandbox& sandbox, const std::string& variant, const std::string& input,
            const std::string& output, const std::string& raw, int threads, double timeout, int picture_option,
            const std::map<std::string, std::string>& options) const {
        WorkDir work(0);
        const Runner runner(program, sandbox, work.path(), timeout);
        const auto variants = list_variants(runner, exercises);
        const auto it = std::find_if(variants.begin(), variants.end(), [&](const RunnerVariant& v) { return v.name == variant; });
        if (it == variants.end())
            throw std::invalid_argument("no variant '" + variant + "' (see `./labkit list " + lab.name + "`)");
        if (lowercase_extension(output) != ".png")
            throw std::invalid_argument("--output " + output + ": the picture is written as PNG; name it .png");
        check_output_path(output, "--output");
        check_output_path(raw, "--raw");
        if (it->kind == "gpu" && !it->simulated && !it->emulated) {
            const auto device = probe_device(false, timeout);
            if (!device.available)
                throw std::runtime_error(variant + " is a GPU variant and this machine cannot run it: " +
                                         device.unavailable_reason);
        }
        GraderExercise& ex = find_exercise(exercises, it->exercise);
        ex.prepare_photo(input, options, work.path() / "case");
        if (!ex.applies(0, variant))
            throw std::invalid_argument(variant + " does not apply to these parameters (see `./labkit list " + lab.name + "`)");
        std::filesystem::path answer;
        if (!it->reference) {
            const auto answers = work.path() / "answers";
            std::filesystem::create_directories(answers);
            const auto log = (work.path() / "runner.log").string();
            const auto [w, h] = ex.case_size(0);
            RunnerCall call{{"check", it->exercise, variant, "--manifest", ex.manifest().string(), "--answers",
                             answers.string(), "--threads", std::to_string(threads), "--report-fd", std::to_string(kReportFd)},
                            log, answers, it->kind == "gpu", 0, answer_bytes(static_cast<std::uintmax_t>(w) * h)};
            call.program = it->program;
            const auto out = runner.call(call);
            if (const auto todo = out.last("todo"); !todo.empty()) throw labkit::NotImplemented(todo.substr(todo.find(':') + 2));
            if (const auto skip = out.last("skip"); !skip.empty()) throw std::runtime_error(variant + " cannot run here: " + skip);
            if (const auto error = out.last("error"); !error.empty()) throw std::runtime_error(error);
            if (out.end != ChildOutcome::End::exited || out.exit_code != 0 || out.last("done").empty()) {
                const auto tail = log_tail(log, 3);
                throw std::runtime_error(variant + ": the runner " + out.describe() + (tail.empty() ? "" : ": " + tail));
            }
            answer = answers / answer_name(0);
        }
        const auto result = ex.finish_photo(answer, output, raw, picture_option);
        std::printf("%s on %s: %s\n", variant.c_str(), input.c_str(), result.verdict.c_str());
        for (const auto& w : result.written) std::printf("  wrote %s\n", w.c_str());
        return 0;
    }
};

}  // namespace

int lab_main(int argc, char** argv, const LabDescription& lab, Exercises exercises) {
    labkit::keep_freed_memory();
    CLI::App app{"GPU Labkit grader for " + lab.title + ". It never runs student code itself: it drives a runner\n"
                 "program built from the student's files (--runner) and decides every verdict.",
                 lab.name};
    app.require_subcommand(1);
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later option wins
    const Commands commands{lab, exercises};
    RunnerSpec runner{lab.default_runner, {}};
    const std::string lab_dir = std::string(LABKIT_SOURCE_DIR) + "/labs/" + lab.name;
    runner.python.track = lab_dir + "/kit/track.py";
    runner.python.code = lab_dir + "/python";
    if (!std::filesystem::is_regular_file(runner.python.track)) runner.python.track.clear();  // a lab without a Python track
    else runner.python.contract = contract_json(exercises, kContractSide, kContractSide, {});  // its types and sizes
    std::string sandbox_spec = "auto";
    double timeout = kDefaultTimeoutS;
    auto add_runner = [&](CLI::App* cmd) {
        cmd->add_option("--runner", runner.program, "the runner program to drive (default: the starter's, " + lab.default_runner + ")");
        cmd->add_option("--python", runner.python.interpreter,
                        "also drive the lab's Python track (PyCUDA, CuPy, Numba) with this Python interpreter "
                        "(default: none; ./labkit passes its .venv-python)");
        cmd->add_option("--python-code", runner.python.code,
                        "the folder of the Python track's student files (default: the starter's)")
            ->capture_default_str();
        cmd->add_option("--python-track", runner.python.track, "the lab's description of its Python track")
            ->capture_default_str();
        cmd->add_flag("--python-simulate", runner.python.simulate,
                      "run the Numba variants on Numba's CUDA simulator (CPU only, very slow: tiny --sizes, "
                      "or --max-case-pixels 64)")
            ->group(kGradingGroup);
        cmd->add_option("--sandbox", sandbox_spec,
                        "how the runner (student code) runs: 'auto' (bubblewrap from PATH), 'off', or the path of a bwrap "
                        "program; without one it still runs under the kit's limits, and reports say 'not sandboxed'")
            ->capture_default_str();
    };

    auto* list = app.add_subcommand("list", "the variants, in teaching order: name, kind, summary, exercise, reference|student|peer");
    add_runner(list);

    auto* list_files = app.add_subcommand("list-files", "the files a student edits (what a submission hands in)");
    auto* device = app.add_subcommand("device", "the GPU this machine has: 'gpu<TAB>NAME', or 'none<TAB>WHY' (exit 1)");
    auto* options = app.add_subcommand(
        "options", "the options of `grade` a front end hands on as given (the " + kGradingGroup +
                       " group), as JSON: [{name, value (whether it takes one), type, default, help}]");

    GradeOptions g;
    std::string sizes = "default", perf_sizes, perf_params, perf_patterns, globs = "*", threads;
    std::string photos = std::string(LABKIT_SOURCE_DIR) + "/datasets/photos";
    int runs = 0;
    std::uint64_t seed = 0;
    bool quick = false, no_perf = false, no_check = false;
    g.diff_dir = "results/diff";
    g.label = "student";
    auto* grade_cmd = app.add_subcommand(
        "grade",
        "Checks every variant against the reference on awkward sizes and patterns, then times the variants\n"
        "that pass. Each variant runs in its own runner process, so a hang, crash or CUDA error is a verdict\n"
        "and grading goes on.");
    add_runner(grade_cmd);
    grade_cmd->add_option("--variants", globs, "only these variants (shell wildcards, e.g. 'gpu-02*'), comma-separated")->capture_default_str()
        ->type_name("GLOB,...")
        ->group(kGradingGroup);
    auto* sizes_opt =
        grade_cmd->add_option("--sizes", sizes, "correctness sizes: WxH,...; 'quick' and 'default' stand for those lists")
            ->capture_default_str()
            ->type_name("WxH,...")
        ->group(kGradingGroup);
    const std::string default_perf = lab.perf_sizes.empty() ? join_commas(kDefaultPerfSizes) : join_commas(lab.perf_sizes);
    grade_cmd->add_option("--perf-sizes", perf_sizes,
                          "square sizes to time, N,... (default " + default_perf + "; --quick " + join_commas(kQuickPerfSizes) + ")")
        ->type_name("N,...")
        ->group(kGradingGroup);
    std::string labels;
    for (const auto& e : exercises) {
        const auto info = e->info();
        for (const auto& p : info.perf_params) {
            if (p.empty()) continue;
            const bool by_default = std::ranges::find(info.default_perf_params, p) != info.default_perf_params.end();
            labels += (labels.empty() ? "" : ", ") + p + (by_default ? "" : " (timed only when named)");
        }
    }
    grade_cmd->add_option("--perf-params", perf_params,
                          labels.empty() ? std::string("only these timed parameters (this lab has none: ignored)")
                                         : "only these timed parameters, LABEL,... (of: " + labels + ")")
        ->type_name("LABEL,...")
        ->group(kGradingGroup);
    std::string pattern_names;
    for (const auto& p : labkit::kPatterns) pattern_names += (pattern_names.empty() ? "" : ", ") + std::string(p.name);
    grade_cmd->add_option("--perf-patterns", perf_patterns,
                          "time on these images instead of the lab's own, NAME,... (of: " + pattern_names +
                              "), e.g. a one-valued image for a histogram")
        ->type_name("NAME,...")
        ->group(kGradingGroup);
    using labkit::RunPolicy;
    grade_cmd->add_option("--runs", runs, "timed runs per measurement (default: adaptive, " + std::to_string(RunPolicy::kMinRuns) + " to " +
                                              std::to_string(RunPolicy::kMaxRuns) + "; --quick " + std::to_string(kQuickRuns) +
                                              "; a CPU measurement goes on until its median settles, up to " +
                                              std::to_string(RunPolicy::kMaxSettleRuns) + " runs)")->check(kPositive)
        ->type_name("N")
        ->group(kGradingGroup);
    auto* seed_opt = grade_cmd->add_option("--seed", seed, "seed of the random images of the checked cases (default: new each run, printed); every timed run's image is drawn anew when it starts, whatever the seed")
        ->type_name("S")
        ->group(kGradingGroup);
    grade_cmd->add_flag("--no-perf", no_perf, "check only")
        ->group(kGradingGroup);
    grade_cmd->add_flag("--no-check", no_check, "time only, without checking (for tuning; a class run times this way only what its check passed)");
    char factor[32];
    std::snprintf(factor, sizeof factor, "%g", kDeadlineFactor);
    grade_cmd->add_option("--timeout", timeout,
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
        ->group(kGradingGroup);
    grade_cmd->add_option("--threads", threads, "OpenMP thread counts to sweep, N,... (default: 1, 2, 4, ... up to the cores)")
        ->type_name("N,...")
        ->group(kGradingGroup);
    double cpu_max_gflop = kCpuPerfMaxFlops / kFlopsPerGflop;
    grade_cmd->add_option("--cpu-max-gflop", cpu_max_gflop,
                          "leave out CPU timings (the sequential reference's included) whose one call would exceed "
                          "this many GFLOP; raise it to time the OpenMP variants on large filters")
        ->capture_default_str()
        ->check(kPositive)
        ->type_name("G")
        ->group(kGradingGroup);
    grade_cmd->add_option("--photos", photos,
                          "a folder of real photos to check on (empty: none); --perf-patterns photo times on its first")
        ->capture_default_str()
        ->type_name("DIR")
        ->group(kGradingGroup);
    grade_cmd->add_option("--max-case-pixels", g.cases.max_pixels,
                          "leave out every case larger than this many pixels, the lab's own cases too (with "
                          "--python-simulate: Numba's simulator runs a few thousand pixels a second)")
        ->check(CLI::PositiveNumber)
        ->type_name("N")
        ->group(kGradingGroup);
    grade_cmd->add_option("--cases-cache", g.cases.cache_dir,
                          "keep the cases and their expected outputs in this folder (made private, 0700), and reuse "
                          "them when another grading asks for the same ones (same seed, sizes, photos and grader)");
    grade_cmd->add_option("--kept-timings", g.kept_timings,
                          "keep the timings of the grader's own rows (each exercise's reference) in this folder (made "
                          "private, 0700), and reuse them when another grading asks for the same ones (same grader, "
                          "machine and timing settings)");
    const std::string side = std::to_string(kDiffMaxSide);
    grade_cmd->add_option("--diff-dir", g.diff_dir,
                          "the folder diff images of failing cases go into, as given (empty: none); one per size "
                          "class of a variant, at most " + side + "x" + side + " px")
        ->capture_default_str();
    grade_cmd->add_option("--label", g.label, "what is graded, in titles and files (student, solution, ...)")->capture_default_str();
    grade_cmd->add_option("--json", g.json, "write every result as JSON");
    grade_cmd->add_option("--csv", g.csv, "write the timings as CSV (one row per variant and size)");
    grade_cmd->add_option("--markdown", g.markdown, "write the tables as Markdown, ready for a report");
    grade_cmd->add_flag("--quick", quick, "small sizes only, and one timing per variant: one size, the cores, the first "
                                         "pattern and timed parameters, " + std::to_string(kQuickRuns) +
                                         " runs (a check of seconds while you work)")
        ->group(kGradingGroup);
    std::string sanitize_tool, sanitizer_path;
    grade_cmd->add_option("--sanitize", sanitize_tool,
                          "check every GPU variant under compute-sanitizer --tool TOOL (memcheck, racecheck, synccheck, "
                          "initcheck), in the same sandbox; its findings go into every report. Slow: use small --sizes");
    grade_cmd->add_option("--sanitizer", sanitizer_path,
                          "the compute-sanitizer program (default: from PATH, else /usr/local/cuda/bin/compute-sanitizer)");
    grade_cmd->add_flag("--emulate", g.emulate,
                        "the runner (--runner) is an emulated one: its GPU variants run on the CPU, each checked under three "
                        "orders of a block's threads; no GPU is probed or used, GPU variants are not timed, and one that "
                        "passes reads 'pass (emulated)', never a GPU's pass (./labkit grade --emulate builds the runner). An image with a "
                        "side of " + std::to_string(kEmulatedLargeSide) + " or more checks them on the lab's large patterns only");
    bool validate_only = false;
    grade_cmd->add_flag("--validate-only", validate_only,
                        "check the options (sizes, variants, output paths) and stop: exit 0 when they are good, 2 when not");

    std::string variant, input, output, raw;
    int run_threads = labkit::cores();
    auto* run_cmd = app.add_subcommand(
        "run",
        "Runs one variant on one image (PNG, JPEG, PGM/PPM, BMP, TGA; colour becomes BT.601 gray) and writes a picture of\n"
        "the result, saying whether it matches the reference. --raw also writes the values (.csv as text,\n"
        "anything else as little-endian binary, row-major, no header).");
    add_runner(run_cmd);
    run_cmd->add_option("VARIANT", variant, "the variant to run (see `list`)")->required();
    run_cmd->add_option("--input", input, "image to read")->required();
    run_cmd->add_option("--output", output, "picture to write (PNG)")->required();
    run_cmd->add_option("--raw", raw, "also write the raw values");
    run_cmd->add_option("--threads", run_threads, "OpenMP threads for CPU variants")->capture_default_str()->check(kPositive);
    int picture_option = lab.picture_default;
    if (!lab.picture_option.empty())
        run_cmd->add_option("--" + lab.picture_option, picture_option, lab.picture_help)->capture_default_str()->check(kPositive);
    // The exercises' own options (a filter, a border mode): each once, by name.
    std::map<std::string, std::string> run_values;
    for (const auto& e : exercises)
        for (const RunOption& o : e->run_options()) {
            const std::string name(o.name);
            if (run_values.count(name)) continue;
            run_values[name] = std::string(o.default_value);
            run_cmd->add_option("--" + name, run_values[name], std::string(o.help))->capture_default_str();
        }
    run_cmd->add_option("--timeout", timeout, "kill the runner after this many seconds without progress")
        ->capture_default_str()
        ->check(kPositive);

    // `contract`: the facts tools outside the kit read instead of restating them.
    int contract_width = kContractSide, contract_height = kContractSide;
    std::map<std::string, std::string> contract_values = run_values;
    auto* contract_cmd = app.add_subcommand(
        "contract",
        "Prints, as JSON, what each exercise of the lab takes and gives for one input size and `run`'s options:\n"
        "the pixel types (numpy's names), the output's size, the comparison (abs and rel tolerance; 0 and 0:\n"
        "exact) and what the parameters are (e.g. a filter's weights). Benchmarks read it instead of restating it.");
    contract_cmd->add_option("--width", contract_width, "the input's width")->capture_default_str()->check(kPositive);
    contract_cmd->add_option("--height", contract_height, "the input's height")->capture_default_str()->check(kPositive);
    for (auto& [name, value] : contract_values) {
        const auto* o = run_cmd->get_option("--" + name);
        contract_cmd->add_option("--" + name, value, o->get_description())->capture_default_str();
    }

    const std::string prefix = lab.name + " " + (argc > 1 ? argv[1] : "");
    try {
        app.parse(argc, argv);
        ::umask(S_IWGRP | S_IWOTH);  // the case files must be readable by the sandbox user
        const Sandbox sandbox = *list || *run_cmd || *grade_cmd ? Sandbox::open(sandbox_spec) : Sandbox{};
        if (*list) return commands.list(runner, sandbox, timeout);
        if (*list_files) return commands.list_files();
        if (*options) return print_grading_options(*grade_cmd);
        if (*contract_cmd) {
            std::printf("%s\n", contract_json(exercises, contract_width, contract_height, contract_values).c_str());
            return 0;
        }
        if (*device) {
            const auto d = probe_device(false, timeout);
            std::printf("%s\t%s\n", d.available ? "gpu" : "none", (d.available ? d.name : d.unavailable_reason).c_str());
            return d.available ? 0 : 1;
        }
        if (*run_cmd)
            return commands.run(runner, sandbox, variant, input, output, raw, run_threads, timeout, picture_option, run_values);

        g.runner = runner;
        g.sandbox = &sandbox;
        g.timeout_s = timeout;
        g.check = !no_check;
        g.time = !no_perf;
        g.variant_globs = split_commas(globs);
        g.cases.sizes = parse_sizes(quick && sizes_opt->count() == 0 ? "quick" : sizes);  // --sizes wins
        g.cases.photos_dir = photos;
        g.cases.seed = *seed_opt ? seed
                                 : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) %
                                       1000000007ULL;
        g.perf.seed = g.cases.seed;
        if (!perf_sizes.empty()) {
            g.perf.sizes = to_ints(split_commas(perf_sizes), "--perf-sizes");
        } else if (quick) {
            g.perf.sizes.assign(kQuickPerfSizes.begin(), kQuickPerfSizes.end());
        } else if (!lab.perf_sizes.empty()) {
            g.perf.sizes = lab.perf_sizes;
        } else {
            g.perf.sizes.assign(kDefaultPerfSizes.begin(), kDefaultPerfSizes.end());
        }
        if (!labels.empty()) g.perf.params = split_commas(perf_params);  // a lab without labels ignores it
        for (const auto& l : g.perf.params) {
            bool known = false;
            for (const auto& e : exercises)
                for (const auto& p : e->info().perf_params) known = known || p == l;
            if (!known) throw std::invalid_argument("--perf-params: no timed parameters '" + l + "' (of: " + labels + ")");
        }
        for (const auto& name : split_commas(perf_patterns))  // each once: a name given twice is timed once
            if (std::ranges::find(g.perf.patterns, name) == g.perf.patterns.end()) g.perf.patterns.push_back(name);
        for (const auto& name : g.perf.patterns)
            if (!labkit::parse_pattern(name))
                throw std::invalid_argument("--perf-patterns: no pattern '" + name + "' (of: " + pattern_names + ")");
        const std::string photo_name(labkit::pattern_name(labkit::Pattern::photo));
        const auto names_photo = [&](const std::vector<std::string>& names) {
            return std::ranges::find(names, photo_name) != names.end();
        };
        bool times_photo = names_photo(g.perf.patterns);
        for (const auto& e : exercises) times_photo = times_photo || (g.perf.patterns.empty() && names_photo(e->info().perf_patterns));
        times_photo = times_photo && !no_perf;
        if (!no_check || times_photo) {
            std::string shown;  // what the folder holds besides its images, hidden files aside
            for (const auto& name : check_photos(photos))
                if (name.front() != '.') shown += (shown.empty() ? "" : ", ") + name;
            std::string extensions;
            for (const auto ext : labkit::kImageExtensions) extensions += (extensions.empty() ? "" : " ") + std::string(ext);
            if (!shown.empty())
                std::fprintf(stderr, "note: --photos %s: left out what is not named as an image (%s): %s\n", photos.c_str(),
                             extensions.c_str(), shown.c_str());
        }
        if (times_photo) {
            const auto found = photos.empty() ? std::vector<std::filesystem::path>{} : labkit::images_in(photos);
            if (found.empty())
                throw std::invalid_argument("--perf-patterns " + photo_name + ": no image (" + std::string(labkit::kImageFormats) +
                                            ") in --photos '" + photos + "'");
            g.perf.photo = found.front().string();
            labkit::use_photo(labkit::load_gray(g.perf.photo));  // the grader's half: the reference and the checks
        }
        // --quick times one thread count, the cores (what --threads does not name); and of each
        // exercise one pattern and one set of timed parameters (PerfSettings::first_only).
        g.perf.threads = !threads.empty() ? to_ints(split_commas(threads), "--threads")
                         : quick          ? std::vector<int>{labkit::cores()}
                                          : thread_sweep();
        g.perf.first_only = quick;
        g.perf.policy.fixed_runs = runs > 0 ? runs : quick ? kQuickRuns : 0;
        g.perf.cpu_max_flops = cpu_max_gflop * kFlopsPerGflop;
        for (const int n : g.perf.sizes) {
            try {
                labkit::check_image_size(n, n, "--perf-sizes " + std::to_string(n));
            } catch (const std::exception& e) {
                throw std::invalid_argument(e.what());
            }
        }
        std::optional<Sanitizer> sanitizer;
        if (!sanitize_tool.empty()) {
            if (no_check) throw std::invalid_argument("--sanitize watches the checks: it cannot go with --no-check");
            if (g.emulate) throw std::invalid_argument("--sanitize watches a GPU: it cannot go with --emulate");
            sanitizer = Sanitizer::open(sanitize_tool, sanitizer_path);
            g.sanitizer = &*sanitizer;
        }
        check_output_path(g.json, "--json");
        check_output_path(g.csv, "--csv");
        check_output_path(g.markdown, "--markdown");
        // Every chosen variant must exist: asked of the runner, before anything is written.
        validate_variants(g, exercises);
        if (validate_only) return 0;
        return grade(lab, exercises, g);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : kUsageExit;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "%s: %s\n", prefix.c_str(), e.what());
        return kUsageExit;
    } catch (const std::out_of_range& e) {  // std::stoi on a number too large
        std::fprintf(stderr, "%s: a number is out of range (%s)\n", prefix.c_str(), e.what());
        return kUsageExit;
    } catch (const labkit::NotImplemented& e) {
        std::fprintf(stderr, "%s: TODO: %s\n", prefix.c_str(), e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: error: %s\n", prefix.c_str(), e.what());
        return 1;
    }
}

}  // namespace grader
