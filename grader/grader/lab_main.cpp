#include "lab_main.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include "command_line.hpp"
#include "grade_command.hpp"
#include "labkit/errors.hpp"
#include "labkit/host_memory.hpp"
#include "session.hpp"

namespace grader {
using namespace protocol;
namespace {

constexpr int kContractSide = 64;  // `contract`'s input size unless given (the output's size follows it)

std::string lowercase_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
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

// `run`'s arguments: one variant on one image, and the exercises' own options by name.
struct RunArgs {
    std::string variant, input, output, raw;
    int threads = labkit::cores();
    int picture_option = 0;
    std::map<std::string, std::string> values;  // the exercises' options (a filter, a border mode)
};

CLI::App* add_run(CLI::App& app, RunnerOptions& runner, const LabDescription& lab, const Exercises& exercises,
                  RunArgs& a) {
    auto* cmd = app.add_subcommand(
        "run",
        "Runs one variant on one image (PNG, JPEG, PGM/PPM, BMP, TGA; colour becomes BT.601 gray) and writes a picture of\n"
        "the result, saying whether it matches the reference. --raw also writes the values (.csv as text,\n"
        "anything else as little-endian binary, row-major, no header).");
    runner.add_to(cmd, lab, GradeCommand::kGroup);
    cmd->add_option("VARIANT", a.variant, "the variant to run (see `list`)")->required();
    cmd->add_option("--input", a.input, "image to read")->required();
    cmd->add_option("--output", a.output, "picture to write (PNG)")->required();
    cmd->add_option("--raw", a.raw, "also write the raw values");
    cmd->add_option("--threads", a.threads, "OpenMP threads for CPU variants")->capture_default_str()->check(kPositive);
    a.picture_option = lab.picture_default;
    if (!lab.picture_option.empty())
        cmd->add_option("--" + lab.picture_option, a.picture_option, lab.picture_help)->capture_default_str()->check(kPositive);
    // The exercises' own options: each once, by name.
    for (const auto& e : exercises)
        for (const RunOption& o : e->run_options()) {
            const std::string name(o.name);
            if (a.values.count(name)) continue;
            a.values[name] = std::string(o.default_value);
            cmd->add_option("--" + name, a.values[name], std::string(o.help))->capture_default_str();
        }
    cmd->add_option("--timeout", runner.timeout, "kill the runner after this many seconds without progress")
        ->capture_default_str()
        ->check(kPositive);
    return cmd;
}

// `contract`'s arguments: an input size and `run`'s options.
struct ContractArgs {
    int width = kContractSide, height = kContractSide;
    std::map<std::string, std::string> values;
};

// `contract`: the facts tools outside the kit read instead of restating them.
CLI::App* add_contract(CLI::App& app, const CLI::App& run, const RunArgs& run_args, ContractArgs& a) {
    auto* cmd = app.add_subcommand(
        "contract",
        "Prints, as JSON, what each exercise of the lab takes and gives for one input size and `run`'s options:\n"
        "the pixel types (numpy's names), the output's size, the comparison (abs and rel tolerance; 0 and 0:\n"
        "exact) and what the parameters are (e.g. a filter's weights). Benchmarks read it instead of restating it.");
    cmd->add_option("--width", a.width, "the input's width")->capture_default_str()->check(kPositive);
    cmd->add_option("--height", a.height, "the input's height")->capture_default_str()->check(kPositive);
    a.values = run_args.values;  // their defaults
    for (auto& [name, value] : a.values)
        cmd->add_option("--" + name, value, run.get_option("--" + name)->get_description())->capture_default_str();
    return cmd;
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

    int device(double timeout) const {
        const auto d = probe_device(false, timeout);
        std::printf("%s\t%s\n", d.available ? "gpu" : "none", (d.available ? d.name : d.unavailable_reason).c_str());
        return d.available ? 0 : 1;
    }

    int contract(const ContractArgs& a) const {
        std::printf("%s\n", contract_json(exercises, a.width, a.height, a.values).c_str());
        return 0;
    }

    int run(const RunnerSpec& program, const Sandbox& sandbox, double timeout, const RunArgs& a) const {
        const std::string& variant = a.variant;
        const std::string& input = a.input;
        const std::string& output = a.output;
        const std::string& raw = a.raw;
        const int threads = a.threads;
        const int picture_option = a.picture_option;
        const auto& options = a.values;
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
    RunnerOptions runner(lab);
    if (!runner.runner.python.track.empty())
        runner.runner.python.contract = contract_json(exercises, kContractSide, kContractSide, {});  // its types and sizes

    auto* list = app.add_subcommand("list", "the variants, in teaching order: name, kind, summary, exercise, reference|student|peer");
    runner.add_to(list, lab, GradeCommand::kGroup);
    auto* list_files = app.add_subcommand("list-files", "the files a student edits (what a submission hands in)");
    auto* device = app.add_subcommand("device", "the GPU this machine has: 'gpu<TAB>NAME', or 'none<TAB>WHY' (exit 1)");
    auto* options = app.add_subcommand(
        "options", "the options of `grade` a front end hands on as given (the " + GradeCommand::kGroup +
                       " group), as JSON: [{name, value (whether it takes one), type, default, help}]");
    GradeCommand grade(app, runner, lab, exercises);
    RunArgs run_args;
    auto* run = add_run(app, runner, lab, exercises, run_args);
    ContractArgs contract_args;
    auto* contract = add_contract(app, *run, run_args, contract_args);

    const std::string prefix = lab.name + " " + (argc > 1 ? argv[1] : "");
    try {
        app.parse(argc, argv);
        ::umask(S_IWGRP | S_IWOTH);  // the case files must be readable by the sandbox user
        const Sandbox sandbox = *list || *run || grade.chosen() ? Sandbox::open(runner.sandbox_spec) : Sandbox{};
        if (*list) return commands.list(runner.runner, sandbox, runner.timeout);
        if (*list_files) return commands.list_files();
        if (*options) return grade.print_options();
        if (*contract) return commands.contract(contract_args);
        if (*device) return commands.device(runner.timeout);
        if (*run) return commands.run(runner.runner, sandbox, runner.timeout, run_args);
        return grade.run(sandbox);
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
