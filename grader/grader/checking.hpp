// Checking a lab's variants against the reference (checking.cpp): one variant's verdict, with the
// details a student reads (where, what was expected and got, the kind of bug), and the hangs of a
// grading that make its later configurations wait less.
#pragma once

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "grade.hpp"
#include "labkit/table.hpp"
#include "report.hpp"
#include "session.hpp"

namespace grader {

// A result of v with nothing decided yet: its names and kind.
VariantResult start_result(const RunnerVariant& v);

// Runs `runner check` for one variant and judges every answer as it arrives. Progress is an
// answer to a case not answered before, nothing else the runner prints.
// schedule: an emulated GPU variant's (check_emulated), which is asked only the emulated cases;
// "" for any other. reordered_only: only the small reordered cases are asked for and counted.
// short_because: why each case gets the short deadline of a hang before it (HangBudget), or "".
VariantResult check_variant(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                            const std::filesystem::path& work, labkit::Progress& progress, const std::string& schedule = "",
                            bool reordered_only = false, const std::string& short_because = "");
// An emulated GPU variant (--emulate), checked under three schedules of a block's threads: a
// failure says whether it is a race (some schedules) or a formula (every one).
VariantResult check_emulated(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                             const std::filesystem::path& work, labkit::Progress& progress);
// A GPU variant on a machine that cannot run it: written (compiled, not checked) or TODO.
VariantResult dry_run_variant(const RunnerVariant& v, const GradeOptions& o, const Runner& runner, const std::string& why,
                              const std::filesystem::path& work);

// The hangs of one grading: which steps hung (kHungStepS) and what the GPU variants' hangs cost
// (kGpuHangBudgetS).
class HangBudget {
public:
    // Why each case of v gets the short deadline, or "" for the usual one.
    std::string short_because(const RunnerVariant& v) const {
        if (const auto it = hung_.find(step_of(v)); it != hung_.end()) return sibling_hung(it->second);
        if (spent(v)) return "this grading's GPU variants have " + spent_text();
        return "";
    }
    // v's verdict without a run: a configuration of its step hung once the budget was spent.
    std::optional<VariantResult> not_run(const RunnerVariant& v) const {
        const auto it = hung_.find(step_of(v));
        if (it == hung_.end() || !spent(v)) return std::nullopt;
        VariantResult r = start_result(v);
        r.status = Status::timeout;
        r.detail = "not run: " + sibling_hung(it->second) + ", and this grading's GPU variants have " + spent_text() +
                   ", so its other configurations are not run: fix the hang and grade again";
        return r;
    }
    void record(const RunnerVariant& v, const VariantResult& r, double seconds) {
        if (r.status != Status::timeout) return;
        hung_.emplace(step_of(v), v.name);
        if (v.kind == "gpu") gpu_hung_s_ += seconds;
    }

private:
    // The step a variant is a configuration of (see kHungStepS).
    static std::string step_of(const RunnerVariant& v) {
        return v.exercise + "\t" + v.kind + "\t" + v.summary + "\t" + std::to_string(v.program);
    }
    static std::string sibling_hung(const std::string& name) { return name + " (a configuration of the same step) hung"; }
    bool spent(const RunnerVariant& v) const { return v.kind == "gpu" && gpu_hung_s_ >= kGpuHangBudgetS; }
    std::string spent_text() const {
        return "hung for " + seconds_text(std::round(gpu_hung_s_)) + " s, past their budget of " + seconds_text(kGpuHangBudgetS) + " s";
    }
    std::map<std::string, std::string> hung_;  // step_of() -> its first configuration that timed out
    double gpu_hung_s_ = 0;
};

}  // namespace grader
