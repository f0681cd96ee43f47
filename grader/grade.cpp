#include "grade.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "labkit/table.hpp"
#include "report.hpp"
#include "session.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;

bool selected(const GradeOptions& o, const std::string& name) {
    return std::any_of(o.variant_globs.begin(), o.variant_globs.end(),
                       [&](const std::string& g) { return ::fnmatch(g.c_str(), name.c_str(), 0) == 0; });
}

// Bytes of case files a run writes at most: every input once, plus answers in flight.
std::uintmax_t case_bytes(const CaseSettings& s) {
    constexpr std::uintmax_t kBytesPerPixelBound = 16;  // inputs and answers of up to 8-byte elements
    std::uintmax_t pixels = 0;
    for (const auto& [w, h] : s.sizes) pixels += static_cast<std::uintmax_t>(w) * h;
    constexpr std::uintmax_t kPatternsBound = 8;
    return pixels * kPatternsBound * kBytesPerPixelBound;
}

VariantResult start_result(const RunnerVariant& v) {
    VariantResult r;
    r.exercise = v.exercise;
    r.name = v.name;
    r.summary = v.summary;
    r.kind = v.kind;
    r.reference = v.reference;
    return r;
}

// Runs `runner check` for one variant and judges every answer as it arrives.
VariantResult check_variant(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const fs::path& work,
                            labkit::Progress& progress) {
    VariantResult r = start_result(v);
    const fs::path answers = work / ("answers-" + v.name);
    fs::create_directories(answers);
    // A case whose parameters are not for this variant is neither asked for nor counted.
    std::vector<bool> answered(ex.cases(), false);
    for (std::size_t i = 0; i < ex.cases(); ++i) answered[i] = !ex.applies(i, v.name);
    r.cases_total = static_cast<int>(std::count(answered.begin(), answered.end(), false));
    std::string current, malformed;
    const std::string diff_dir = o.diff_dir.empty() ? "" : o.diff_dir + "/" + o.label;
    const auto out = spawn(
        {o.runner, "check", v.exercise, v.name, "--manifest", ex.manifest().string(), "--answers", answers.string(),
         "--threads", std::to_string(o.perf.threads.back()), "--report-fd", std::to_string(kReportFd)},
        {o.timeout_s, (work / (v.name + ".log")).string()},
        [&](const std::string& key, const std::string& value) {
            const auto f = split_tabs(value);
            std::size_t i = 0;
            if (key == "begin" || key == "done") {
                try {
                    i = std::stoul(f[0]);
                } catch (const std::exception&) {
                    return;  // not a case number: ignored, the case stays unanswered
                }
                if (i >= ex.cases()) return;
            }
            if (key == "begin") {
                current = ex.case_name(i);
                progress.detail(v.name + " " + current);
            } else if (key == "done" && !answered[i]) {
                answered[i] = true;
                const fs::path file = answers / answer_name(i);
                auto j = ex.judge(i, file, diff_dir, v.name);
                const std::string guard = f.size() > 1 ? f[1] : "";
                if (!guard.empty()) j = {false, guard + (j.detail.empty() ? "" : "; " + j.detail), j.diff, j.malformed};
                if (j.malformed && malformed.empty()) malformed = ex.case_name(i) + ": " + j.detail;
                std::error_code ec;
                fs::remove(file, ec);
                const auto [w, h] = ex.case_size(i);
                CaseResult c{ex.case_name(i), static_cast<long long>(w) * h, j.pass ? Status::pass : Status::fail,
                             j.detail, j.diff};
                (j.pass ? r.cases_passed : r.cases_failed)++;
                if (!j.pass && r.detail.empty()) r.detail = c.name + ": " + c.detail;
                r.cases.push_back(std::move(c));
                current.clear();
            }
        });
    const std::string where = current.empty() ? "" : current + ": ";
    const int unanswered = static_cast<int>(std::count(answered.begin(), answered.end(), false));
    if (const auto todo = out.last("todo"); !todo.empty()) {
        r.status = Status::todo;
        r.detail = todo;
    } else if (out.end == ChildOutcome::End::timed_out) {
        r.status = Status::timeout;
        r.detail = where + out.describe();
    } else if (out.end == ChildOutcome::End::crashed) {
        r.status = Status::crash;
        r.detail = where + out.describe();
        if (const auto tail = log_tail((work / (v.name + ".log")).string(), 2); !tail.empty()) r.detail += "; " + tail;
    } else if (const auto error = out.last("error"); !error.empty()) {
        r.status = Status::error;
        r.detail = where + error;
    } else if (out.end != ChildOutcome::End::exited || out.exit_code != 0) {
        r.status = Status::error;
        r.detail = where + "the runner " + out.describe();
    } else if (!malformed.empty()) {
        r.status = Status::error;
        r.detail = malformed;
    } else if (unanswered > 0) {
        // An exit with cases left unanswered is never a pass, whatever was printed.
        r.status = Status::error;
        r.detail = "the runner exited after answering " + std::to_string(r.cases_total - unanswered) + " of " +
                   std::to_string(r.cases_total) + " cases";
    } else {
        r.status = r.cases_failed > 0 ? Status::fail : Status::pass;
    }
    return r;
}

// A GPU variant on a machine that cannot run it: written (compiled, not checked) or TODO.
VariantResult dry_run_variant(const RunnerVariant& v, const GradeOptions& o, const std::string& why, const fs::path& work) {
    VariantResult r = start_result(v);
    const auto out = spawn({o.runner, "dry", v.exercise, v.name, "--report-fd", std::to_string(kReportFd)},
                           {o.timeout_s, (work / (v.name + "-dry.log")).string()});
    if (const auto todo = out.last("todo"); !todo.empty()) {
        r.status = Status::todo;
        r.detail = todo;
    } else {
        r.status = Status::not_run;
        r.detail = why + " (compiled)";
    }
    return r;
}

std::vector<PerfPoint> time_variant(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o,
                                    const fs::path& work, labkit::Progress& progress, std::string& problem) {
    std::vector<PerfLine> lines;
    if (v.reference) {
        progress.detail(v.name + " (in the grader)");
        lines = ex.time_reference(o.perf);
    } else {
        std::string patterns;
        for (const auto& p : ex.info().perf_patterns) patterns += (patterns.empty() ? "" : ",") + p;
        std::vector<std::string> argv{o.runner, "time", v.exercise, v.name, "--sizes", join_commas(o.perf.sizes),
                                      "--patterns", patterns,
                                      "--threads", join_commas(o.perf.threads), "--seed", std::to_string(o.perf.seed),
                                      "--report-fd", std::to_string(kReportFd)};
        if (o.perf.policy.fixed_runs > 0) argv.insert(argv.end(), {"--runs", std::to_string(o.perf.policy.fixed_runs)});
        if (!o.perf.params.empty()) argv.insert(argv.end(), {"--params", join_commas(o.perf.params)});
        const auto out = spawn(argv, {o.timeout_s, (work / (v.name + "-time.log")).string()},
                               [&](const std::string& key, const std::string& value) {
                                   if (key == "begin") progress.detail(v.name + " " + value);
                               });
        for (const auto& [key, value] : out.lines) {
            if (key != "perf") continue;
            try {
                lines.push_back(decode_perf(value));
            } catch (const std::exception& e) {
                problem = e.what();
            }
        }
        if (out.end != ChildOutcome::End::exited || out.exit_code != 0)
            problem = out.last("error").empty() ? out.describe() : out.last("error");
    }
    std::vector<PerfPoint> points;
    for (auto& l : lines) {
        const double flops = ex.flops_per_pixel(v.name, l.params);
        points.push_back({v.exercise, v.name, v.kind, std::move(l), flops});
    }
    return points;
}

}  // namespace

void validate_variants(const GradeOptions& o, const Exercises& exercises) {
    const auto all = list_variants(o.runner, exercises, o.timeout_s);
    for (const auto& g : o.variant_globs) {
        const bool any = std::any_of(all.begin(), all.end(),
                                     [&](const RunnerVariant& v) { return ::fnmatch(g.c_str(), v.name.c_str(), 0) == 0; });
        if (!any) throw std::invalid_argument("--variants: '" + g + "' matches no variant (see ./labkit list)");
    }
}

int grade(const LabDescription& lab, const Exercises& exercises, const GradeOptions& o) {
    const auto all = list_variants(o.runner, exercises, o.timeout_s);
    std::vector<RunnerVariant> chosen;
    for (const auto& v : all)
        if (selected(o, v.name)) chosen.push_back(v);
    if (chosen.empty()) throw std::invalid_argument("no variant matches --variants");

    Report report;
    report.lab = lab.name;
    report.label = o.label;
    report.seed = o.cases.seed;
    report.host = labkit::query_host();
    for (const auto& e : exercises) report.exercises.push_back(e->info());
    const bool any_gpu = std::any_of(chosen.begin(), chosen.end(), [](const RunnerVariant& v) { return v.kind == "gpu"; });
    if (any_gpu) {
        report.device = probe_device(o.time, o.timeout_s);
    } else {
        report.device.unavailable_reason = "not needed";
    }
    print_environment(report);

    WorkDir work(case_bytes(o.cases));
    if (o.check) {
        std::fprintf(stderr, "preparing the cases (expected outputs by the reference)...\n");
        for (const auto& e : exercises) {
            const auto name = e->info().name;
            if (std::any_of(chosen.begin(), chosen.end(), [&](const RunnerVariant& v) { return v.exercise == name && !v.reference; }))
                e->prepare(o.cases, work.path() / name);
        }
    }

    labkit::Progress progress("checking", static_cast<int>(chosen.size()));
    for (const auto& v : chosen) {
        progress.step(v.name);
        VariantResult r = start_result(v);
        if (v.reference) {
            r.detail = "the reference";
        } else if (v.kind == "gpu" && !report.device.available) {
            r = dry_run_variant(v, o, report.device.unavailable_reason, work.path());
        } else if (!o.check) {
            r.status = Status::skipped;  // timed, never called a pass
            r.detail = "not checked (--no-check)";
        } else {
            r = check_variant(v, find_exercise(exercises, v.exercise), o, work.path(), progress);
        }
        report.results.push_back(std::move(r));
    }
    progress.done();
    print_correctness(report);

    if (o.time) {
        std::vector<const RunnerVariant*> timed;
        for (std::size_t i = 0; i < chosen.size(); ++i)
            if (report.results[i].status == Status::pass || (!o.check && report.results[i].status == Status::skipped))
                timed.push_back(&chosen[i]);
        // Speedups need each exercise's reference, also when --variants left it out.
        for (const auto& ref : all) {
            if (!ref.reference) continue;
            const auto same = [&](const RunnerVariant* v) { return v->exercise == ref.exercise; };
            const auto first = std::find_if(timed.begin(), timed.end(), same);
            const bool has_ref = std::any_of(timed.begin(), timed.end(), [&](const RunnerVariant* v) { return v->reference && same(v); });
            if (first != timed.end() && !has_ref) timed.insert(first, &ref);
        }
        labkit::Progress perf_progress("timing", static_cast<int>(timed.size()));
        for (const RunnerVariant* v : timed) {
            perf_progress.step(v->name);
            std::string problem;
            auto points = time_variant(*v, find_exercise(exercises, v->exercise), o, work.path(), perf_progress, problem);
            if (!problem.empty()) report.perf_problems.push_back(v->name + ": " + problem);
            report.perf.insert(report.perf.end(), points.begin(), points.end());
        }
        perf_progress.done();
        print_performance(report);
    }

    write_files(report, o.json, o.csv, o.markdown);
    const bool failed = std::any_of(report.results.begin(), report.results.end(),
                                    [](const VariantResult& r) { return is_failure(r.status); });
    return failed ? 1 : 0;
}

}  // namespace grader
