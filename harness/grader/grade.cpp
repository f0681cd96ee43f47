#include "grade.hpp"

#include <fnmatch.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include "labkit/generators.hpp"
#include "kept_timings.hpp"
#include "labkit/table.hpp"
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

VariantResult start_result(const RunnerVariant& v) {
    VariantResult r;
    r.exercise = v.exercise;
    r.name = v.name;
    r.summary = v.summary;
    r.kind = v.kind;
    r.reference = v.reference;
    r.peer = v.peer;
    return r;
}

// The diff images of one variant's failing cases. Drawing one costs far more than judging the case
// and a broken variant may fail every case, so only its first wrong output of each size class gets
// one: the failures the report shows. A later one names the case whose image shows its size.
class DiffImages {
public:
    explicit DiffImages(std::string dir) : dir_(std::move(dir)) {}

    // Where the image of a case of this many pixels goes: "" when it gets none.
    std::string folder_for(long long pixels) const { return drawn_[slot(pixels)].empty() ? dir_ : ""; }

    // Records the image judge() drew for the case, or says in its detail that it was left out.
    void note(const std::string& case_name, long long pixels, Judgement& j) {
        std::string& drawn = drawn_[slot(pixels)];
        if (!j.diff.empty())
            drawn = case_name;
        else if (!j.pass && !j.malformed && !drawn.empty())
            j.detail += "; diff image left out (a variant gets one per size class: see " + drawn + "'s)";
    }

private:
    static std::size_t slot(long long pixels) { return static_cast<std::size_t>(size_class(pixels)); }

    std::string dir_;  // empty: no diff images at all
    std::array<std::string, kSizeClasses.size()> drawn_;  // by size class, the case whose image it has
};

// The kit's wall-clock limits of one runner call, beyond the silence limit: a few silences,
// plus an allowance per case or measurement (the slowest honest ones, 8192^2 on one CPU core,
// take seconds).
constexpr double kWallSilences = 2;
constexpr double kWallPerCaseS = 2;
constexpr double kWallPerMeasurementS = 30;
constexpr std::size_t kSanitizerFindingsKept = 3;  // the first say what and where; the log has the rest

// The deadlines of a `runner check` call's cases: kDeadlineFactor and its neighbours (grade.hpp).
// The step a variant is a configuration of (see kHungStepS).
std::string step_of(const RunnerVariant& v) {
    return v.exercise + "\t" + v.kind + "\t" + v.summary + "\t" + std::to_string(v.program);
}

// The silence limit of one `runner check` call, set at each case's `begin` (see kDeadlineFactor).
class CaseDeadlines {
public:
    // short_because: why every case gets kHungStepS (a hang before it), "" for none.
    CaseDeadlines(const GraderExercise& ex, double timeout_s, bool sanitized, std::string short_because, double floor_s)
        : ex_(ex), timeout_s_(timeout_s), sanitized_(sanitized), short_because_(std::move(short_because)), floor_s_(floor_s) {}

    // Case i begins; first: no case of the call has been answered yet (the runner's start counts).
    void begin(std::size_t i, bool first) {
        double s = 0;
        std::string why;
        if (!short_because_.empty()) {
            s = kHungStepS;
            why = "a short deadline, as " + short_because_;
        } else {
            const double reference_s = ex_.reference_seconds(i);
            s = std::max(floor_s_, kDeadlineFactor * reference_s) + (first ? kRunnerStartS : 0);
            const double reference_ms = reference_s * kMsPerS;
            constexpr double kWholeMs = 10;  // from here on, whole milliseconds: "0.0079 ms", "1.3 ms", "312 ms"
            char ms[32], text[160];
            if (reference_ms < kWholeMs) std::snprintf(ms, sizeof ms, "%.2g", reference_ms);
            else std::snprintf(ms, sizeof ms, "%.0f", reference_ms);
            std::snprintf(text, sizeof text, "the deadline came from the reference: %gx its %s ms on this case, at least %s s",
                          kDeadlineFactor, ms, seconds_text(floor_s_).c_str());
            why = text;
            if (first) why += ", and " + seconds_text(kRunnerStartS) + " s for the runner's start";
        }
        if (sanitized_) {
            s *= kSanitizerSlowdown;
            why += ", " + seconds_text(kSanitizerSlowdown) + "x under compute-sanitizer";
        }
        if (s >= timeout_s_) {  // --timeout is the most: it says so itself
            s = timeout_s_;
            why.clear();
        }
        limit_ = {s, why};
    }
    const SilenceLimit& limit() const { return limit_; }

private:
    const GraderExercise& ex_;
    double timeout_s_;
    bool sanitized_;
    std::string short_because_;
    double floor_s_;
    SilenceLimit limit_;
    static constexpr double kMsPerS = 1000;
};

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
    static std::string sibling_hung(const std::string& name) { return name + " (a configuration of the same step) hung"; }
    bool spent(const RunnerVariant& v) const { return v.kind == "gpu" && gpu_hung_s_ >= kGpuHangBudgetS; }
    std::string spent_text() const {
        return "hung for " + seconds_text(std::round(gpu_hung_s_)) + " s, past their budget of " + seconds_text(kGpuHangBudgetS) + " s";
    }
    std::map<std::string, std::string> hung_;  // step_of() -> its first configuration that timed out
    double gpu_hung_s_ = 0;
};

Judgement judge_digest(const std::string& hex, std::uint64_t want) {
    std::uint64_t got = 0;
    std::size_t used = 0;
    try {
        got = std::stoull(hex, &used, 16);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != hex.size()) return {false, "malformed digest '" + hex.substr(0, 16) + "'", "", true};
    if (got == want) return {true, "", "", false};
    return {false, "the output differs from the reference (its digest does)", "", false};
}

// The cases of a variant whose digest was wrong: the first is run again with its answer as a
// file, judged like any other, so that its detail says where and what, with a diff image; the
// others name it. If the second run gives the right output, the variant is not deterministic.
void explain_wrong_digests(VariantResult& r, const std::vector<std::size_t>& wrong, const RunnerCall& first_call,
                           const RunnerVariant& v, GraderExercise& ex, const Runner& runner, const fs::path& work,
                           DiffImages& diffs) {
    const std::size_t first = wrong.front();
    const fs::path answers = first_call.answers;
    RunnerCall again = first_call;
    const auto digest = std::find(again.args.begin(), again.args.end(), "--digest");
    again.args.erase(digest, digest + 2);  // the file this time
    again.args.insert(again.args.end(), {"--only", std::to_string(first)});
    again.log = (work / (v.name + "-again.log")).string();
    again.silence = nullptr;  // its handler sets no deadlines: the fixed --timeout
    std::optional<Judgement> judged;
    const auto [w, h] = ex.case_size(first);
    const long long pixels = static_cast<long long>(w) * h;
    const auto out = runner.call(again, [&](const std::string& key, const std::string& value) {
        const auto f = split_tabs(value);
        if (key != "done" || judged || f[0] != std::to_string(first)) return false;
        judged = ex.judge(first, answers / answer_name(first), diffs.folder_for(pixels), v.name);
        diffs.note(ex.case_name(first), pixels, *judged);
        std::error_code ec;
        fs::remove(answers / answer_name(first), ec);
        return true;
    });
    std::string detail;
    std::string diff;
    if (!judged) {
        detail = "the output differs from the reference (its digest does); running the case again to see where failed: " +
                 out.describe();
    } else if (judged->pass) {
        detail = "the output differed from the reference in one run and matched it in a second: the variant does not "
                 "give the same output every time (a race, or memory read before it is written?)";
    } else {
        detail = judged->detail;
        diff = judged->diff;
    }
    for (auto& c : r.cases) {
        if (c.name == ex.case_name(first)) {
            c.detail = detail;
            c.diff = diff;
        } else if (std::find_if(wrong.begin(), wrong.end(), [&](std::size_t i) { return ex.case_name(i) == c.name; }) !=
                   wrong.end()) {
            c.detail = "the output differs from the reference (its digest does); " + ex.case_name(first) + " shows where";
        }
    }
    for (const auto& c : r.cases)
        if (c.status == Status::fail) {
            r.detail = c.name + ": " + c.detail;
            break;
        }
}

// The cases that the reversed and shuffled orders run: up to this many pixels (every awkward
// shape of the quick sizes, 255x257 the largest: partial and many blocks in both directions).
// An order's bug is a block's, and shows on any image that fills blocks; the large cases and
// the photos, which cost the most (a fiber switch per thread per barrier), run in order only.
constexpr long long kReorderedMaxPixels = 65536;
// Of the shared patterns, only this one's cases are reordered: a thread that reads a neighbour's
// value before or after its update reads a different number only where neighbours differ, as in
// noise; zeros, all-255 or a ramp hide it. The cases of no shared pattern (the lab's own: a
// filter size, a histogram's shape; a photo, were one that small) are all reordered. One pattern
// of four nearly halved Lab 1's emulation time (measurements/emulation-speed-*): its 1024-thread
// scans take a whole block through 20 barriers for each one-pixel row of a 1x4099 strip.
constexpr labkit::Pattern kReorderedPattern = labkit::Pattern::random;

bool reordered(const GraderExercise& ex, std::size_t i) {
    const auto [w, h] = ex.case_size(i);
    const auto pattern = ex.case_pattern(i);
    return static_cast<long long>(w) * h <= kReorderedMaxPixels && (!pattern || *pattern == kReorderedPattern);
}

// Runs `runner check` for one variant and judges every answer as it arrives. Progress is an
// answer to a case not answered before, nothing else the runner prints.
// schedule: an emulated GPU variant's (check_emulated), which is asked only the emulated_case()s;
// "" for any other. reordered_only: the cases that reordered() leaves out are neither asked for
// nor counted. short_because: why each case gets the short deadline of a hang before it
// (HangBudget), or "".
VariantResult check_variant(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                            const fs::path& work, labkit::Progress& progress, const std::string& schedule = "",
                            bool reordered_only = false, const std::string& short_because = "") {
    VariantResult r = start_result(v);
    const fs::path answers = work / ("answers-" + v.name);
    fs::create_directories(answers);
    // A case whose parameters are not for this variant is neither asked for nor counted.
    std::vector<bool> answered(ex.cases(), false);
    std::vector<std::size_t> asked;  // the runner's --only, when not every case
    for (std::size_t i = 0; i < ex.cases(); ++i) {
        answered[i] = !ex.applies(i, v.name) || (reordered_only && !reordered(ex, i)) ||
                      (!schedule.empty() && !ex.emulated_case(i));
        if (!answered[i]) asked.push_back(i);
    }
    r.cases_total = static_cast<int>(asked.size());
    if (reordered_only && asked.empty()) {  // no such case: nothing to ask (an empty --only asks all)
        r.status = Status::pass;
        return r;
    }
    std::string current, malformed;
    DiffImages diffs(o.diff_dir);
    std::uintmax_t largest = 0;
    for (std::size_t i = 0; i < ex.cases(); ++i) {
        const auto [w, h] = ex.case_size(i);
        largest = std::max<std::uintmax_t>(largest, static_cast<std::uintmax_t>(w) * h);
    }
    // A GPU variant answers a large case compared exactly with its output's digest: no quarter
    // of a gigabyte through a file. A wrong digest says only that the output is wrong, so the
    // first such case is run again for its file, which says where and draws the diff image.
    std::vector<std::size_t> digests, wrong_digests;
    if (v.kind == "gpu")
        for (std::size_t i = 0; i < ex.cases(); ++i)
            if (!answered[i] && ex.expected_digest(i)) digests.push_back(i);
    const auto asked_digest = [&](std::size_t i) { return std::find(digests.begin(), digests.end(), i) != digests.end(); };
    const bool sanitized = o.sanitizer && v.kind == "gpu";
    const double per_case_s = kWallPerCaseS * (sanitized ? kSanitizerSlowdown : 1);
    RunnerCall call{{"check", v.exercise, v.name, "--manifest", ex.manifest().string(), "--answers", answers.string(),
                     "--threads", std::to_string(o.perf.threads.back()), "--report-fd", std::to_string(kReportFd)},
                    (work / (v.name + ".log")).string(), answers, v.kind == "gpu",
                    o.timeout_s * kWallSilences + per_case_s * r.cases_total, answer_bytes(largest), sanitized};
    call.program = v.program;
    // A deadline per case where the reference's time predicts the variant's (kDeadlineFactor).
    const bool own_deadlines = v.program == 0 && !v.emulated && !v.simulated && schedule.empty() && !asked.empty();
    CaseDeadlines deadlines(ex, o.timeout_s, sanitized, short_because, v.kind == "gpu" ? kDeadlineFloorS : kCpuDeadlineFloorS);
    if (own_deadlines) {
        deadlines.begin(asked.front(), true);  // until the first `begin`: its start and first case
        call.silence = &deadlines.limit();
    }
    if (!digests.empty()) call.args.insert(call.args.end(), {"--digest", join_commas(digests)});
    if (!schedule.empty()) call.args.insert(call.args.end(), {"--schedule", schedule});
    // Only what is counted is run: an emulated case on a long side costs seconds.
    if (!asked.empty() && asked.size() < ex.cases()) call.args.insert(call.args.end(), {"--only", join_commas(asked)});
    const auto out = runner.call(
        call, [&](const std::string& key, const std::string& value) {
            const auto f = split_tabs(value);
            std::size_t i = 0;
            if (key == "begin" || key == "done") {
                try {
                    i = std::stoul(f[0]);
                } catch (const std::exception&) {
                    return false;  // not a case number: ignored, the case stays unanswered
                }
                if (i >= ex.cases()) return false;
            }
            if (key == "begin") {
                current = ex.case_name(i);
                progress.detail(v.name + " " + current);
                if (own_deadlines) deadlines.begin(i, r.cases_passed + r.cases_failed == 0);
                return false;
            }
            if (key == "done" && !answered[i]) {
                answered[i] = true;
                const fs::path file = answers / answer_name(i);
                const auto [w, h] = ex.case_size(i);
                const long long pixels = static_cast<long long>(w) * h;
                Judgement j;
                if (f.size() > 2 && !f[2].empty() && asked_digest(i)) {
                    j = judge_digest(f[2], *ex.expected_digest(i));
                    const bool guard_hit = f.size() > 1 && !f[1].empty();  // that verdict says more
                    if (!j.pass && !j.malformed && !guard_hit) wrong_digests.push_back(i);
                } else {
                    j = ex.judge(i, file, diffs.folder_for(pixels), v.name);
                    diffs.note(ex.case_name(i), pixels, j);
                }
                const std::string guard = f.size() > 1 ? f[1] : "";
                if (!guard.empty()) j = {false, guard + (j.detail.empty() ? "" : "; " + j.detail), j.diff, j.malformed};
                if (j.malformed && malformed.empty()) malformed = ex.case_name(i) + ": " + j.detail;
                std::error_code ec;
                fs::remove(file, ec);
                CaseResult c{ex.case_name(i), pixels, j.pass ? Status::pass : Status::fail, j.detail, j.diff, ex.lab_case(i)};
                (j.pass ? r.cases_passed : r.cases_failed)++;
                if (!j.pass && r.detail.empty()) r.detail = c.name + ": " + c.detail;
                r.cases.push_back(std::move(c));
                current.clear();
                return true;
            }
            return false;
        });
    const std::string where = current.empty() ? "" : current + ": ";
    // Under the sanitizer, its exit status says that it found errors; the runner's own failures
    // still show as missing answers or error lines.
    const bool found = sanitized && out.end == ChildOutcome::End::exited && out.exit_code == kSanitizerFoundExit;
    if (sanitized) {
        auto findings = sanitizer_findings(call.log, kSanitizerFindingsKept);
        const bool clean = !found && findings.empty();
        r.sanitizer = SanitizerResult{o.sanitizer->tool, clean, true, std::move(findings), ""};
        const fs::path kept = fs::path(o.diff_dir) / (v.name + "-" + o.sanitizer->tool + ".log");
        if (!clean && !o.diff_dir.empty() && keep_sanitizer_report(call.log, kept)) r.sanitizer->report = kept.string();
    }
    const int unanswered = static_cast<int>(std::count(answered.begin(), answered.end(), false));
    if (const auto todo = out.last("todo"); !todo.empty()) {
        r.status = Status::todo;
        r.detail = todo;
    } else if (const auto skip = out.last("skip"); !skip.empty() && r.cases_passed + r.cases_failed == 0) {
        r.status = Status::skipped;  // the runner cannot run it here (a Python driver not installed)
        r.detail = "skipped: " + skip;
    } else if (out.end == ChildOutcome::End::timed_out) {
        r.status = Status::timeout;
        r.detail = where + out.describe();
    } else if (out.end == ChildOutcome::End::over_limit) {
        r.status = Status::error;
        r.detail = where + out.describe();
    } else if (out.end == ChildOutcome::End::crashed) {
        r.status = Status::crash;
        r.detail = where + out.describe();
        if (const auto tail = log_tail((work / (v.name + ".log")).string(), 2); !tail.empty()) r.detail += "; " + tail;
    } else if (const auto error = out.last("error"); !error.empty()) {
        r.status = Status::error;
        r.detail = where + error;
    } else if (out.end != ChildOutcome::End::exited || (out.exit_code != 0 && !found)) {
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
        if (!wrong_digests.empty()) explain_wrong_digests(r, wrong_digests, call, v, ex, runner, work, diffs);
    }
    // A check that did not run to its end (a timeout, a crash, a runner that behaves otherwise
    // under the sanitizer) was not watched all through: "not checked", never "clean".
    if (r.sanitizer && r.sanitizer->clean)
        r.sanitizer->checked = r.status == Status::pass || r.status == Status::fail || r.status == Status::todo;
    return r;
}

// The orders in which an emulated block's threads run between barriers (the runner's --schedule):
// a kernel missing a barrier gives a wrong output under at least one of them.
std::vector<std::string> schedules(std::uint64_t seed) {
    return {"in-order", "reversed", "shuffled:" + std::to_string(seed)};
}
// A wrong output that depends on the order in which a block's threads run is a race; one that
// is the same under every order is the arithmetic or an index (a formula error), whatever the
// threads do. An emulated variant that failed is asked again, on the small reordered() cases,
// under each schedule, and its verdict says which of the two it is: the students' "is it my
// barriers or my formula?" (a truncating LUT read as a schedule's failure, issue 50). A schedule
// fixes the threads' order, so one that gives another output when asked twice reads memory
// before or without its write (a static __shared__ array keeps an earlier block's values here,
// from whichever block ran before on that CPU thread), or has blocks that wait for each other:
// that verdict names both.
struct FailureKind {
    std::vector<std::string> wrong, right;  // the schedules under which the small cases fail, pass
    bool same_output = false;               // wrong under every one: the same cases, each the same way
    bool unsteady = false;                  // the first failing schedule, asked twice, answered otherwise
};

FailureKind classify_failure(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                             const fs::path& work, labkit::Progress& progress, const std::vector<std::string>& orders) {
    GradeOptions quiet = o;
    quiet.diff_dir.clear();  // the first run's diff images stay those of the schedule its detail names
    using Output = std::map<std::string, std::string>;  // a failing case -> its detail
    const auto run = [&](const std::string& schedule, bool& plain_failure) {
        const VariantResult r = check_variant(v, ex, quiet, runner, work, progress, schedule, true);
        plain_failure = r.status == Status::fail;  // never a crash or a timeout
        Output out;
        for (const auto& c : r.cases)
            if (c.status != Status::pass) out[c.name] = c.detail;
        return std::pair{r.status == Status::pass, out};
    };
    FailureKind k;
    std::vector<Output> outputs;  // per failing schedule
    bool all_plain = true;
    for (const auto& s : orders) {
        bool plain = false;
        auto [pass, out] = run(s, plain);
        (pass ? k.right : k.wrong).push_back(s);
        if (pass) continue;
        all_plain = all_plain && plain;
        if (outputs.empty()) {
            bool again_plain = false;
            k.unsteady = plain && run(s, again_plain).second != out;
        }
        outputs.push_back(std::move(out));
    }
    k.same_output = k.right.empty() && all_plain &&
                    std::all_of(outputs.begin(), outputs.end(), [&](const Output& out) { return out == outputs.front(); });
    return k;
}

std::string and_list(const std::vector<std::string>& items) {
    std::string s;
    for (std::size_t i = 0; i < items.size(); ++i)
        s += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    return s;
}

// The sentence that opens a failed emulated variant's detail (kRaceWords or kNotRaceWords first:
// tests/emulate_selftest.py looks for them).
constexpr const char* kRaceWords = "a race";
constexpr const char* kNotRaceWords = "not a race";
std::string failure_words(const FailureKind& k) {
    if (k.wrong.empty())
        return "wrong on a larger case, right on the small ones under every schedule: an error that only larger "
               "images show (an index or a count past a block or a section, an overflow), or blocks that depend "
               "on each other's order; ";
    if (k.unsteady)  // a missing barrier before a tile is read and a halo never loaded both read so
        return "a race or unwritten memory: the " + k.wrong.front() +
               " schedule, which fixes the threads' order, gave another wrong output when run again: memory read "
               "before it is written (a missing __syncthreads?) or that nobody writes (part of a tile or a halo "
               "never loaded?), or blocks that depend on each other's order; ";
    if (!k.right.empty())
        return std::string(kRaceWords) + ": wrong under the " + and_list(k.wrong) + " schedule" +
               (k.wrong.size() > 1 ? "s" : "") + ", right under the " + and_list(k.right) +
               ": a thread reads what another has not written yet, or overwrites what another still reads "
               "(a missing or misplaced __syncthreads?); ";
    if (k.same_output)
        return std::string(kNotRaceWords) + ": the same wrong output under every schedule (" + and_list(k.wrong) +
               "), so the arithmetic or an index is wrong, whatever order the threads run in; ";
    return std::string(kRaceWords) + ": wrong under every schedule, and differently under each (" + and_list(k.wrong) +
           "): the output depends on the order the threads run in (a missing or misplaced __syncthreads?); ";
}

// An emulated GPU variant (--emulate): checked under the reversed and the seed's shuffled
// schedules on the reordered() cases, then in order on every case; the first schedule that does
// not pass gives the verdict, named in its detail, which a failure opens with its kind
// (classify_failure). Passing under all of them is "pass (emulated)", never a GPU's pass.
VariantResult check_emulated(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                             const fs::path& work, labkit::Progress& progress) {
    const auto orders = schedules(o.cases.seed);
    VariantResult r;
    for (const auto& s : {orders[1], orders[2], orders[0]}) {
        r = check_variant(v, ex, o, runner, work, progress, s, s != orders[0]);
        if (r.status == Status::todo || r.status == Status::skipped) return r;  // the same under every schedule
        if (r.status != Status::pass) {
            const std::string kind =
                r.status == Status::fail ? failure_words(classify_failure(v, ex, o, runner, work, progress, orders)) : "";
            r.detail = kind + "emulated, " + s + " schedule: " + r.detail;
            return r;
        }
    }
    r.status = Status::pass_emulated;
    r.detail = "emulated on the CPU: every case (a side of " + std::to_string(kEmulatedLargeSide) +
               " or more: the lab's large patterns only) right under the " + orders[0] + " schedule, and the " +
               std::string(labkit::pattern_name(kReorderedPattern)) + " and lab cases up to " +
               std::to_string(kReorderedMaxPixels) + " pixels under the " + orders[1] + " and " + orders[2] +
               " schedules too";
    return r;
}

// A GPU variant on a machine that cannot run it: written (compiled, not checked) or TODO.
VariantResult dry_run_variant(const RunnerVariant& v, const GradeOptions& o, const Runner& runner, const std::string& why,
                              const fs::path& work) {
    VariantResult r = start_result(v);
    RunnerCall call{{"dry", v.exercise, v.name, "--report-fd", std::to_string(kReportFd)},
                    (work / (v.name + "-dry.log")).string(), {}, false, o.timeout_s * kWallSilences, 0};
    call.program = v.program;
    const auto out = runner.call(call);
    if (const auto todo = out.last("todo"); !todo.empty()) {
        r.status = Status::todo;
        r.detail = todo;
    } else if (const auto skip = out.last("skip"); !skip.empty()) {
        r.status = Status::skipped;
        r.detail = "skipped: " + skip;
    } else if (const auto error = out.last("error"); !error.empty()) {
        r.status = Status::error;  // it did not even load (a Python file that does not parse)
        r.detail = error;
    } else {
        r.status = Status::not_run;
        r.detail = why + " (compiled)";
    }
    return r;
}

// What timing one variant gave: its measurements, and what the grader saw of them.
struct Timing {
    std::vector<PerfPoint> points;
    std::vector<std::string> flags;  // why its timings are not to be trusted (flagged for review)
    std::vector<std::string> notes;  // what the timings show that costs nothing (VariantResult::notes)
    std::string wrong;               // the output of a timed run was wrong: the variant fails
    std::string problem;             // the runner failed while timing
    // CPU measurements that kept more threads busy (or wanting a core) than they were given: each
    // a flag only once a repeat confirms it (confirm_busy); what was seen, in words.
    struct Busy {
        PerfLine line;
        std::string seen;
    };
    std::vector<Busy> busy;
};

// Reported kernel time must fit in the wall time the grader measured, with room for clock
// granularity.
constexpr double kFitSlack = 1.05, kFitMarginMs = 1;
// Device work still running this long after a run's stop event was not timed: flagged when it
// is both above noise (an idle device syncs in microseconds) and a real share of the kernel time.
constexpr double kLateMs = 0.05, kLateShare = 0.1;
// A CPU measurement's CPU time (every thread's: cpu_clock.hpp) over its wall time is the threads
// it kept busy. An honest measurement given t threads keeps at most t busy, the runtime's short
// barrier spins and the reading's own cost aside: the bound, t * kBusyFactor + kBusySlack (1.15
// for one thread, 2.25 for two), is passed only by running threads it was not given. A machine
// busy with other work leaves a team of more threads than cores less than the cores: on a shared
// 2-core machine a team of 4x the cores given one thread kept 1.6 busy, and under 1.25 when other
// gradings ran beside it. Calls under kBusyMinMs are not judged: the team's start and end, and
// the clock's reading, weigh too much in them.
constexpr double kBusyFactor = 1.1, kBusySlack = 0.05, kBusyMinMs = 1;
// So the threads that ran or waited for a core during the calls are judged too
// (protocol::ThreadDemand), which a loaded machine does not shrink: the corpus's team of 4x the
// cores, given one thread and confined to one core (taskset), kept 1.0 busy and 2.6 to 2.7
// running or waiting. An honest team of t reads at most t (each thread counts at most the call's
// wall time), so its bound is t plus kDemandSlack, for an OpenMP pool that a larger team of an
// earlier measurement left spinning, without kBusyFactor (the CPU-time reading's own error): on
// an H200 node's 8 timing cores, honest teams of 8 read 6.7 to 7.9, and the corpus's team of 32
// given 8 read 9.3 in 0.90 ms calls, under the bound of 9.35 that kBusyFactor made.
constexpr double kDemandSlack = 0.5;
// Either bound passed is only a suspicion: the variant is timed again at that point (confirm_busy),
// with calls enough for kBusyMinCpuMs of CPU time, and flagged only when the repeat passes a bound
// too. The errors that do not shrink with a measurement's length (a team's start and its spin
// after the region, a thread's time read as of its last tick: 4 ms at HZ=250, cpu_clock.hpp) are
// a few ms each: over 50 ms they weigh about what kBusySlack allows, over 7 calls of 1.3 ms (the
// reference's cpu-openmp-expert under --quick on a loaded 2-core node, read as 1.2 threads busy
// given 1) they decide the reading. The repeat asks for kRepeatMargin times the calls the first
// reading's CPU time per call needs, as they may run faster the second time (a core freed).
constexpr double kBusyMinCpuMs = 50;
constexpr double kRepeatMargin = 2;
// The other way round: a measurement given t >= 2 threads, on a machine with c cores, that kept
// fewer than 1 + kIdleShare * (min(t, c) - 1) busy (1.1 of 2, 2.5 of 16) did not share its work
// among them: a missing `parallel`, a thread count not passed on, or one thread doing what the
// others wait for. It gains nothing (its best time over the thread counts is scored), so it is a
// note, not a flag. A loaded machine can leave an honest team short of cores too, but its threads
// still run or wait for one (protocol::ThreadDemand): so where the runner measured that demand, it
// must be under the same bound, which also judges calls under kBusyMinMs (the corpus's
// ignores_threads at --quick on an H200 node: 0.81 ms calls, 1.0 busy and 1.0 wanting a core given
// 8, against 6.7 to 7.9 wanting for honest teams of 8); where it did not (the Python track), only
// calls of kBusyMinMs or more are judged, and the note says that a loaded machine leaves fewer cores.
constexpr double kIdleShare = 0.1;

// A CPU measurement on a busy machine: the load average (runnable threads, this run's own among
// them) above the cores, or timed calls that spread more than kNoisyShare (interquartile range
// over the median). On a shared login node CPU times then swing 2x from one run to the next, so
// they are noted, not flagged: the verdict stands, the times are not to be compared.
constexpr double kNoisyShare = 0.2;

std::string busy_machine_note(const std::vector<PerfLine>& lines, double load, int cores) {
    const PerfLine* noisiest = nullptr;
    for (const auto& l : lines)
        if (l.ms >= kBusyMinMs && (!noisiest || l.noise > noisiest->noise)) noisiest = &l;
    const bool loaded = load > cores, noisy = noisiest && noisiest->noise > kNoisyShare;
    if (!loaded && !noisy) return "";
    char why[200] = "";
    if (loaded) std::snprintf(why, sizeof why, "a load average of %.1f on %d cores", load, cores);
    if (noisy) {
        char spread[160];
        std::snprintf(spread, sizeof spread, "%stimed calls that spread %.0f%% (interquartile range over the median) at %dx%d, %d thread%s",
                      loaded ? " and " : "", 100 * noisiest->noise, noisiest->width, noisiest->height, noisiest->threads,
                      noisiest->threads == 1 ? "" : "s");
        std::strncat(why, spread, sizeof why - std::strlen(why) - 1);
    }
    return std::string("busy machine: ") + why + "; CPU times swing on a busy machine, so rerun on an idle one before comparing them";
}

// The load average of the last minute, or 0 where the system does not say.
double load_average() {
    double load = 0;
    return ::getloadavg(&load, 1) == 1 ? load : 0;
}

// The note on a CPU variant whose measurement with the most threads kept few of them busy; "" if
// none. Where the machine's load explains it (machine_busy: busy_machine_note has a note; or not
// even one thread kept busy, which only other work taking the cores does), it says so and asks
// nothing of the code: an honest team on a loaded 2-core machine kept 0.5 threads busy given 2.
std::string idle_threads_note(const std::vector<PerfLine>& lines, bool machine_busy) {
    const auto demand_known = [](const PerfLine& l) { return l.demand_ms > 0; };
    const auto judged = [&](const PerfLine& l) { return demand_known(l) || l.ms >= kBusyMinMs; };
    const PerfLine* most = nullptr;
    for (const auto& l : lines)
        if (judged(l) && (!most || l.threads > most->threads || (l.threads == most->threads && l.ms > most->ms)))
            most = &l;
    if (!most || most->threads < 2 || most->ms <= 0) return "";
    const int usable = std::min(most->threads, labkit::cores());
    const double busy = most->cpu_ms / most->ms, wanting = most->demand_ms / most->ms;
    const double limit = 1 + kIdleShare * (usable - 1);
    if (usable < 2 || busy >= limit || (demand_known(*most) && wanting >= limit)) return "";
    char text[360], also[96] = "";
    if (machine_busy || busy < 1) {
        std::snprintf(text, sizeof text,
                      "kept %.1f threads busy when given %d at %dx%d, on a machine whose other work had the cores: "
                      "this says nothing of how your code shares its work; grade on an idle machine to see it",
                      busy, most->threads, most->width, most->height);
        return text;
    }
    if (demand_known(*most)) std::snprintf(also, sizeof also, " and %.1f running or waiting for a core", wanting);
    std::snprintf(text, sizeof text,
                  "kept %.1f threads busy%s when given %d at %dx%d (their time over the wall time of its timed calls): is "
                  "the work shared among the threads it is given?%s",
                  busy, also, most->threads, most->width, most->height,
                  demand_known(*most) ? "" : " (a machine loaded by other work also leaves fewer cores)");
    return text;
}

// What a CPU measurement shows of threads it was not given: busy, or (on a loaded machine)
// waiting for a core; "" when it kept within its bounds.
std::string threads_over(const PerfLine& l) {
    const double bound = l.ms * (l.threads * kBusyFactor + kBusySlack);
    char text[240] = "";
    if (l.ms >= kBusyMinMs && l.cpu_ms > bound)
        std::snprintf(text, sizeof text, "kept %.1f threads busy when given %d (CPU time over wall time of %d timed calls of %.1f ms)",
                      l.cpu_ms / l.ms, l.threads, l.runs, l.ms);
    else if (l.demand_ms > l.ms * (l.threads + kDemandSlack))
        std::snprintf(text, sizeof text,
                      "kept %.1f threads running or waiting for a core when given %d (%.1f of them busy; their time over the "
                      "wall time of %d timed calls of %.1f ms)",
                      l.demand_ms / l.ms, l.threads, l.cpu_ms / l.ms, l.runs, l.ms);
    return text;
}

void add_flag(Timing& t, const std::string& flag) {
    if (std::find(t.flags.begin(), t.flags.end(), flag) == t.flags.end()) t.flags.push_back(flag);
}

// An exercise as this grading times it: --perf-patterns replaces the contract's perf_patterns,
// and --quick (PerfSettings::first_only) keeps the first of its patterns and timed parameters.
ExerciseInfo timed_info(const GraderExercise& ex, const GradeOptions& o) {
    auto info = ex.info();
    if (!o.perf.patterns.empty()) info.perf_patterns = o.perf.patterns;
    else if (o.perf.first_only && info.perf_patterns.size() > 1) info.perf_patterns.resize(1);
    if (o.perf.first_only && info.default_perf_params.size() > 1) info.default_perf_params.resize(1);
    return info;
}

// A random 64-bit number from the kernel's CSPRNG: what the runner cannot guess.
std::uint64_t random_u64() {
    std::uint64_t x = 0;
    auto* bytes = reinterpret_cast<char*>(&x);
    for (std::size_t got = 0; got < sizeof x;) {
        const ssize_t n = ::getrandom(bytes + got, sizeof x - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
        got += static_cast<std::size_t>(n);
    }
    return x;
}

// The grader's side of the `seed` and `keep` requests of `runner time` (protocol.hpp). Every
// run's input seed is drawn when the runner asks, at the start of that run, so that no run's
// output can be computed before it starts (in the untimed warm-up, say). After each timed run the
// grader says whether it checks that run's output: in every measurement, kChecked runs chosen at
// its `begin` among the first the policy always takes, and each later run with a chance of one in
// kLaterOneIn; the runner learns it only once the run is over. A kept output is judged from the
// runner's next line on (the file is complete by then), against the input of its run's seed.
// A GPU variant's outputs are judged beside the runner, up to kMostAside at once: its timed
// region is the GPU's, and a check at 8192^2 (the input drawn again, the reference, the compare)
// takes seconds that the runner would otherwise wait through. A CPU variant's are judged while
// the runner waits, as a check beside it would take the cores it is timed on.
class TimedChecks {
public:
    static constexpr int kChecked = 2;
    static constexpr std::uint64_t kLaterOneIn = 8;
    static constexpr unsigned kMostAside = 3;       // each holds the output, the input and the reference's
    static constexpr unsigned kCoresPerAside = 4;   // and leaves the runner the host's other cores

    TimedChecks(const GraderExercise& ex, const fs::path& answers, double max_flops, int sure_runs, bool aside)
        : ex_(ex), answers_(answers), max_flops_(max_flops), sure_runs_(std::max(1, sure_runs)),
          most_aside_(aside ? std::clamp(std::thread::hardware_concurrency() / kCoresPerAside, 1u, kMostAside) : 0) {}
    const Replies& replies() const { return replies_; }

    void begin() {
        asked_ = 0;
        chosen_.clear();
        while (static_cast<int>(chosen_.size()) < std::min(kChecked, sure_runs_)) {
            const int run = static_cast<int>(random_u64() % static_cast<std::uint64_t>(sure_runs_));
            if (std::find(chosen_.begin(), chosen_.end(), run) == chosen_.end()) chosen_.push_back(run);
        }
    }
    void seed() {
        seed_ = random_u64();
        seeded_ = true;
        replies_.send(std::to_string(seed_));
    }
    // value: "pattern<TAB>params<TAB>width<TAB>height" of the run's image. False when it is
    // malformed, or came before any seed: nothing is kept then.
    bool keep(const std::string& value) {
        const int run = asked_++;
        const bool chosen = run < sure_runs_ ? std::find(chosen_.begin(), chosen_.end(), run) != chosen_.end()
                                             : random_u64() % kLaterOneIn == 0;
        const auto f = split_tabs(value);
        PerfLine point;
        bool named = f.size() == 4 && seeded_;
        try {
            if (named) point = {.pattern = f[0], .params = f[1], .width = std::stoi(f[2]), .height = std::stoi(f[3]), .stage_ms = {}};
        } catch (const std::exception&) {
            named = false;
        }
        if (!chosen || !named) {
            replies_.send("-");
            return named;
        }
        pending_ = Kept{next_++, seed_, std::move(point)};
        replies_.send(std::to_string(pending_->index));
        return true;
    }
    // Judges the kept output the runner wrote since its last request, at once or beside it: ""
    // or what is wrong with an output whose check has ended (this one's, or an earlier one's).
    std::string judge_pending() {
        if (!pending_) return collect(false);
        auto judge = [this, kept = std::move(*pending_)] {
            const fs::path file = answers_ / answer_name(kept.index);
            auto check = ex_.judge_timed(kept.point, kept.seed, file, max_flops_);
            std::error_code ec;
            fs::remove(file, ec);
            return std::move(check.problem);
        };
        pending_.reset();
        if (most_aside_ == 0) return judge();
        std::string problem = collect(aside_.size() >= most_aside_);  // full: wait for the oldest
        aside_.push_back(std::async(std::launch::async, std::move(judge)));
        return problem;
    }
    // Waits for every check still running beside the runner: "" or the first problem found.
    std::string finish() {
        std::string problem;
        while (!aside_.empty()) {
            std::string p = collect(true);
            if (problem.empty()) problem = std::move(p);
        }
        return problem;
    }
    int asked() const { return asked_; }  // keep requests of the current measurement

private:
    struct Kept {
        std::size_t index;
        std::uint64_t seed;
        PerfLine point;
    };

    // The problem of the oldest check beside the runner if it has ended (or, with wait, once it
    // has): "" when none has, or it found nothing wrong.
    std::string collect(bool wait) {
        if (aside_.empty()) return "";
        auto& oldest = aside_.front();
        if (!wait && oldest.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return "";
        std::string problem = oldest.get();
        aside_.pop_front();
        return problem;
    }
    const GraderExercise& ex_;
    fs::path answers_;
    double max_flops_;
    int sure_runs_;  // the runs the policy takes in every measurement
    Replies replies_;
    std::vector<int> chosen_;
    int asked_ = 0;
    std::size_t next_ = 0;
    std::uint64_t seed_ = 0;
    bool seeded_ = false;
    std::optional<Kept> pending_;
    unsigned most_aside_;                         // 0: every check while the runner waits
    std::deque<std::future<std::string>> aside_;  // the checks running beside it, oldest first
};

// Runs `runner time` for one variant. Only a measurement that was asked for, came after its
// `begin`, fits in the wall time around it and whose checked output is right counts as progress
// and as a timing; anything else is flagged, and a wrong output fails the variant.
// log: the suffix of its log's name (a repeat's is its own).
Timing time_runner(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                   const fs::path& work, labkit::Progress& progress, const std::string& log = "-time") {
    Timing t;
    const fs::path answers = work / ("timed-" + v.name);
    fs::create_directories(answers);
    const auto info = timed_info(ex, o);
    const auto& params = o.perf.params.empty() ? info.default_perf_params : o.perf.params;
    std::vector<std::string> argv{"time", v.exercise, v.name, "--sizes", join_commas(o.perf.sizes),
                                  "--patterns", join_commas(info.perf_patterns), "--threads", join_commas(o.perf.threads),
                                  "--answers", answers.string(),
                                  "--report-fd", std::to_string(kReportFd)};
    if (o.perf.policy.fixed_runs > 0) argv.insert(argv.end(), {"--runs", std::to_string(o.perf.policy.fixed_runs)});
    if (const auto* photo = labkit::photo_in_use();
        photo && std::ranges::find(info.perf_patterns, labkit::pattern_name(labkit::Pattern::photo)) != info.perf_patterns.end()) {
        // The runner's half of the photo pattern: the grader's gray photo, where the runner can read it.
        const fs::path copy = work / "timed-photo.raw";
        if (!fs::exists(copy)) write_raw(copy, photo->view());
        argv.insert(argv.end(), {"--photo", copy.string()});
    }
    if (o.perf.cpu_max_flops != kCpuPerfMaxFlops) {
        char cap[32];  // every digit: the runner must leave out exactly what the grader does
        std::snprintf(cap, sizeof cap, "%.17g", o.perf.cpu_max_flops / kFlopsPerGflop);
        argv.insert(argv.end(), {"--cpu-max-gflop", cap});
    }
    // The runner times all but the on-request parameters unless told: tell it when this grading
    // asks for others (--perf-params) or fewer (--quick).
    if (!o.perf.params.empty() || params.size() < ex.info().default_perf_params.size())
        argv.insert(argv.end(), {"--params", join_commas(params)});
    const std::size_t per_size = info.perf_patterns.size() * params.size() * (v.kind == "cpu" ? o.perf.threads.size() : 1);
    const int largest = *std::max_element(o.perf.sizes.begin(), o.perf.sizes.end());
    RunnerCall call{std::move(argv), (work / (v.name + log + ".log")).string(), answers, v.kind == "gpu",
                    o.timeout_s * kWallSilences + kWallPerMeasurementS * per_size * o.perf.sizes.size(),
                    answer_bytes(static_cast<std::uintmax_t>(largest) * largest)};
    call.program = v.program;
    const int policy_runs = o.perf.policy.fixed_runs > 0 ? o.perf.policy.fixed_runs : labkit::RunPolicy::kMinRuns;
    TimedChecks checks(ex, answers, o.perf.cpu_max_flops, policy_runs, v.kind == "gpu");
    call.replies = &checks.replies();
    const auto in = [](const auto& list, const auto& item) { return std::find(list.begin(), list.end(), item) != list.end(); };
    std::vector<PerfLine> lines;
    std::vector<std::string> seen;
    using Clock = std::chrono::steady_clock;
    bool measuring = false;
    // The timed runs a runner reports must fit in the time it has been running: their sum, since
    // the grader started it, on the grader's clock. Per measurement (from its `begin` line to its
    // `perf` line) would be finer, but the grader reads those lines late whenever it is not
    // scheduled (a CPU variant's OpenMP team on every core), and it then measured less than the
    // runner really took and flagged honest timings. The sum has no such error: every reported run
    // happened after the start and before its line was read.
    const auto started = Clock::now();
    double reported_ms = 0;
    const auto wrong = [&](const std::string& problem) {
        if (!problem.empty() && t.wrong.empty()) t.wrong = problem;
    };
    const auto on_line = [&](const std::string& key, const std::string& value) {
        wrong(checks.judge_pending());  // any line after a kept output: its file is complete
        if (key == "seed") {
            checks.seed();
            return false;
        }
        if (key == "keep") {
            if (!checks.keep(value)) add_flag(t, "a malformed request to keep a timed output was refused");
            return false;
        }
        if (key == "begin") {
            measuring = true;
            checks.begin();
            progress.detail(v.name + " " + value);
            return false;
        }
        if (key != "perf") return false;
        const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
        PerfLine l;
        try {
            l = decode_perf(value);
        } catch (const std::exception&) {
            add_flag(t, "a malformed timing line was ignored");
            return false;
        }
        const std::string point = l.pattern + "|" + l.params + "|" + std::to_string(l.width) + "x" +
                                  std::to_string(l.height) + "|" + std::to_string(l.threads);
        const bool asked = measuring && l.width == l.height && in(o.perf.sizes, l.width) &&
                           in(info.perf_patterns, l.pattern) && in(params, l.params) &&
                           (v.kind == "cpu" ? in(o.perf.threads, l.threads) : l.threads == 0) && !in(seen, point);
        measuring = false;
        if (!asked) {
            add_flag(t, "a timing line that was not asked for (or came twice) was ignored");
            return false;
        }
        seen.push_back(point);
        // Every timed run asks whether its output is checked; one that did not was never open to a check.
        if (checks.asked() < l.runs) add_flag(t, "fewer timed runs offered their output for checking than were reported");
        reported_ms += l.runs * l.min_ms;
        if (reported_ms > wall_ms * kFitSlack + kFitMarginMs) {
            char text[200];
            std::snprintf(text, sizeof text,
                          "reported %.1f ms of timed runs in the %.1f ms the runner had been running", reported_ms,
                          wall_ms);
            add_flag(t, text);
        }
        if (l.late_ms > kLateMs && l.late_ms > kLateShare * l.ms) {
            char text[200];
            std::snprintf(text, sizeof text, "the GPU was still busy %.3f ms after the timed region ended (work on a stream of its own?)",
                          l.late_ms);
            add_flag(t, text);
        }
        if (v.kind == "cpu")  // a suspicion, which confirm_busy() times again
            if (auto seen = threads_over(l); !seen.empty()) t.busy.push_back({l, std::move(seen)});
        lines.push_back(std::move(l));
        return true;
    };
    const auto out = runner.call(call, on_line);
    const bool ended_well = out.end == ChildOutcome::End::exited && out.exit_code == 0;
    if (!ended_well) t.problem = out.last("error").empty() ? out.describe() : out.last("error");
    if (ended_well) wrong(checks.judge_pending());
    wrong(checks.finish());
    if (v.kind == "cpu") {
        const auto busy = busy_machine_note(lines, load_average(), labkit::machine_cores());
        if (auto note = idle_threads_note(lines, !busy.empty()); !note.empty()) t.notes.push_back(std::move(note));
        if (!busy.empty()) t.notes.push_back(busy);
    }
    for (auto& l : lines) {
        const double flops = ex.flops_per_pixel(v.name, l.params);
        t.points.push_back({v.exercise, v.name, v.kind, std::move(l), flops});
    }
    return t;
}

// Each measurement of t that kept more threads busy than it was given is timed again, alone, with
// calls enough for kBusyMinCpuMs of CPU time: a flag when the repeat passes a bound too, else a
// note that costs nothing, and the repeat's timing stands for the first one (a variant that
// behaved only when timed again gains nothing by it).
void confirm_busy(Timing& t, const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                  const fs::path& work, labkit::Progress& progress) {
    for (std::size_t k = 0; k < t.busy.size() && t.wrong.empty(); ++k) {
        const PerfLine& l = t.busy[k].line;
        GradeOptions again = o;
        again.perf.sizes = {l.width};
        again.perf.patterns = {l.pattern};
        again.perf.params = {l.params};
        again.perf.threads = {l.threads};
        const double cpu_per_call = std::max({l.cpu_ms, l.ms, kBusyMinMs});
        again.perf.policy.fixed_runs =
            std::max(labkit::RunPolicy::kMinRuns, static_cast<int>(std::ceil(kBusyMinCpuMs * kRepeatMargin / cpu_per_call)));
        progress.detail(v.name + " timed again");
        Timing r = time_runner(v, ex, again, runner, work, progress, "-time-again-" + std::to_string(k));
        for (const auto& f : r.flags) add_flag(t, f);  // anything else it did wrong in the repeat counts too
        if (!r.wrong.empty()) t.wrong = r.wrong;
        char where[120];
        std::snprintf(where, sizeof where, "at %dx%d, %s, %d thread%s: ", l.width, l.height, l.pattern.c_str(), l.threads,
                      l.threads == 1 ? "" : "s");
        if (!r.problem.empty() || r.points.size() != 1) {
            add_flag(t, where + t.busy[k].seen + "; timing it again to confirm failed: " +
                            (r.problem.empty() ? "no timing came back" : r.problem));
            continue;
        }
        const PerfLine& repeat = r.points.front().line;
        const double cpu_total_ms = repeat.cpu_ms * repeat.runs;
        const std::string seen_again = threads_over(repeat);
        if (!seen_again.empty() && cpu_total_ms >= kBusyMinCpuMs) {
            char total[80];
            std::snprintf(total, sizeof total, " (%.0f ms of CPU time): confirmed", cpu_total_ms);
            add_flag(t, where + t.busy[k].seen + "; timed again, " + seen_again + total);
            continue;
        }
        char repeat_text[320];
        std::snprintf(repeat_text, sizeof repeat_text,
                      "; timed again (%d calls of %.1f ms, %.0f ms of CPU time), it kept %.1f threads busy and %.1f running or "
                      "waiting for a core%s: not confirmed, so not flagged (a loaded machine?), and the repeat's timing is kept",
                      repeat.runs, repeat.ms, cpu_total_ms, repeat.ms > 0 ? repeat.cpu_ms / repeat.ms : 0.0,
                      repeat.ms > 0 ? repeat.demand_ms / repeat.ms : 0.0,
                      seen_again.empty() ? "" : ", in too little CPU time to tell");
        t.notes.push_back(where + t.busy[k].seen + repeat_text);
        for (auto& p : t.points)
            if (p.line.pattern == l.pattern && p.line.params == l.params && p.line.width == l.width &&
                p.line.height == l.height && p.line.threads == l.threads)
                p.line = repeat;
    }
    t.busy.clear();
}

Timing time_variant(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                    const fs::path& work, labkit::Progress& progress) {
    if (!v.reference) {
        Timing t = time_runner(v, ex, o, runner, work, progress);
        confirm_busy(t, v, ex, o, runner, work, progress);
        return t;
    }
    Timing t;
    const std::string key = o.kept_timings.empty() ? "" : kept_timing_key(v.exercise, v.name, o.perf);
    auto kept = key.empty() ? std::nullopt : read_kept_timing(o.kept_timings, key);
    if (kept) {
        progress.detail(v.name + " (kept from " + kept->timed_at + ")");
        t.notes = kept->notes;
        t.notes.push_back("timed " + kept->timed_at + " by an earlier grading with this grader, on this machine, with these "
                          "timing settings, and kept (" + o.kept_timings + ")");
    } else {
        progress.detail(v.name + " (in the grader)");
        kept.emplace();
        kept->lines = ex.time_reference(o.perf);
        if (auto note = busy_machine_note(kept->lines, load_average(), labkit::machine_cores()); !note.empty())
            kept->notes.push_back(std::move(note));
        kept->timed_at = labkit::query_host().date;
        t.notes = kept->notes;
        if (!key.empty() && !kept->lines.empty()) keep_timing(o.kept_timings, key, *kept);
    }
    auto& lines = kept->lines;
    for (auto& l : lines) {
        const double flops = ex.flops_per_pixel(v.name, l.params);
        t.points.push_back({v.exercise, v.name, v.kind, std::move(l), flops});
    }
    return t;
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
