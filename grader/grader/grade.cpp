// Grading, orchestrated: the variants chosen, the cases prepared, each variant checked
// (checking.hpp), the passing ones timed (perf_timing.hpp), and the report printed and written.
#include "grade.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "checking.hpp"
#include "labkit/generators.hpp"
#include "perf_timing.hpp"
#include "report.hpp"
#include "session.hpp"

namespace grader {
using namespace protocol;
namespace {

namespace fs = std::filesystem;

bool selected(const GradeOptions& o, const std::string& name) {
    return std::any_of(o.variant_globs.begin(), o.variant_globs.end(),
                       [&](const std::string& g) { return ::fnmatch(g.c_str(), name.c_str(), 0) == 0; });
}

// Bytes of case files a run writes at most: every input once, plus answers in flight.
std::uintmax_t case_bytes(const CaseSettings& s) {
    std::uintmax_t pixels = 0;
    for (const auto& [w, h] : s.sizes) pixels += static_cast<std::uintmax_t>(w) * h;
    constexpr std::uintmax_t kPatternsBound = 8;
    return answer_bytes(pixels) * kPatternsBound;
}

}  // namespace

void validate_variants(const GradeOptions& o, const Exercises& exercises) {
    const WorkDir work(0);
    const Runner runner(o.runner, *o.sandbox, work.path(), o.timeout_s);
    const auto all = list_variants(runner, exercises);
    // An emulated runner (emulate/meson.build) lists every GPU variant as emulated; any other, none.
    const bool emulated = std::any_of(all.begin(), all.end(), [](const RunnerVariant& v) { return v.emulated; });
    if (emulated != o.emulate)
        throw std::invalid_argument(o.emulate ? "--emulate: the runner " + o.runner.program +
                                                    " is not an emulated one (./labkit grade --emulate builds it)"
                                              : "the runner " + o.runner.program +
                                                    " runs the GPU variants on the CPU: grade it with --emulate");
    for (const auto& g : o.variant_globs) {
        const bool any = std::any_of(all.begin(), all.end(),
                                     [&](const RunnerVariant& v) { return ::fnmatch(g.c_str(), v.name.c_str(), 0) == 0; });
        if (!any) throw std::invalid_argument("--variants: '" + g + "' matches no variant (see ./labkit list)");
    }
}

int grade(const LabDescription& lab, const Exercises& exercises, const GradeOptions& o) {
    WorkDir work(case_bytes(o.cases));
    const Runner runner(o.runner, *o.sandbox, work.path(), o.timeout_s, o.sanitizer);
    const auto all = list_variants(runner, exercises);
    std::vector<RunnerVariant> chosen;
    for (const auto& v : all)
        if (selected(o, v.name)) chosen.push_back(v);
    if (chosen.empty()) throw std::invalid_argument("no variant matches --variants");

    Report report;
    report.lab = lab.name;
    report.label = o.label;
    report.seed = o.cases.seed;
    report.cpu_max_gflop = o.perf.cpu_max_flops / kFlopsPerGflop;
    if (const auto* photo = labkit::photo_in_use(); photo && !o.perf.photo.empty())
        report.timing_photo = fs::path(o.perf.photo).filename().string() + ", " + size_name({photo->width(), photo->height()});
    report.sandbox = o.sandbox->description();
    report.host = labkit::query_host();
    for (const auto& e : exercises) report.exercises.push_back(timed_info(*e, o));
    const bool any_gpu = std::any_of(chosen.begin(), chosen.end(), [](const RunnerVariant& v) { return v.kind == "gpu"; });
    report.emulated = o.emulate;
    if (o.emulate) {
        report.device.unavailable_reason = "none used: --emulate runs the GPU variants on the CPU";
    } else if (any_gpu) {
        report.device = probe_device(o.time, o.timeout_s);
    } else {
        report.device.unavailable_reason = "not needed";
    }
    print_environment(report);

    if (o.check) {
        std::fprintf(stderr, "preparing the cases (expected outputs by the reference)...\n");
        for (const auto& e : exercises) {
            const auto name = e->info().name;
            if (std::any_of(chosen.begin(), chosen.end(), [&](const RunnerVariant& v) { return v.exercise == name && !v.reference; }))
                e->prepare(o.cases, work.path() / name);
        }
    }

    labkit::Progress progress("checking", static_cast<int>(chosen.size()));
    HangBudget hangs;
    for (const auto& v : chosen) {
        progress.step(v.name);
        VariantResult r = start_result(v);
        if (v.reference) {
            r.detail = "the reference";
        } else if (v.emulated && o.check) {
            r = check_emulated(v, find_exercise(exercises, v.exercise), o, runner, work.path(), progress);
        } else if (v.kind == "gpu" && !report.device.available && !v.simulated) {
            r = dry_run_variant(v, o, runner, report.device.unavailable_reason, work.path());
        } else if (!o.check) {
            r.status = Status::skipped;  // timed, never called a pass
            r.detail = "not checked (--no-check)";
        } else if (auto skip = hangs.not_run(v)) {
            r = std::move(*skip);
        } else {
            const auto started = std::chrono::steady_clock::now();
            r = check_variant(v, find_exercise(exercises, v.exercise), o, runner, work.path(), progress, "", false,
                              hangs.short_because(v));
            hangs.record(v, r, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        }
        report.results.push_back(std::move(r));
    }
    progress.done();
    print_correctness(report);

    if (o.time) {
        std::vector<const RunnerVariant*> timed;
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            const bool simulated = chosen[i].kind == "gpu" && !report.device.available;  // checked on a simulator: no timings
            if (!simulated && (report.results[i].status == Status::pass ||
                               (!o.check && report.results[i].status == Status::skipped && report.results[i].detail.starts_with("not checked"))))
                timed.push_back(&chosen[i]);
        }
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
            auto t = time_variant(*v, find_exercise(exercises, v->exercise), o, runner, work.path(), perf_progress);
            if (!t.problem.empty()) report.perf_problems.push_back(v->name + ": " + t.problem);
            const auto r = std::find_if(report.results.begin(), report.results.end(), [&](const VariantResult& x) {
                return x.exercise == v->exercise && x.name == v->name;
            });
            if (r != report.results.end() && !t.wrong.empty()) {
                r->status = Status::fail;
                r->detail = t.wrong;
            }
            if (r != report.results.end()) {
                r->flags = t.flags;
                r->notes = t.notes;
            }
            // A wrong or flagged variant's timings are never shown, compared or rewarded.
            if (t.wrong.empty() && t.flags.empty()) report.perf.insert(report.perf.end(), t.points.begin(), t.points.end());
        }
        perf_progress.done();
        print_timing_verdicts(report);
        print_performance(report);
    }

    write_files(report, o.json, o.csv, o.markdown);
    const bool failed = std::any_of(report.results.begin(), report.results.end(), [](const VariantResult& r) {
        return is_failure(r.status) || (r.sanitizer && !r.sanitizer->clean);
    });
    return failed ? 1 : 0;
}

}  // namespace grader

