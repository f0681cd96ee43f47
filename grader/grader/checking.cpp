// Checking: every variant's outputs against the reference (check_variant), emulated under three
// schedules (check_emulated) or, without a GPU, dry-run to its launches (dry_run_variant); a hung
// step's other configurations (HangBudget). The verdicts and their details are decided here.
#include "checking.hpp"



#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>

#include "labkit/generators.hpp"
#include "labkit/table.hpp"
#include "report.hpp"
#include "session.hpp"


namespace grader {
using namespace protocol;

namespace fs = std::filesystem;

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

namespace {

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

constexpr std::size_t kSanitizerFindingsKept = 3;  // the first say what and where; the log has the rest

// The deadlines of a `runner check` call's cases: kDeadlineFactor and its neighbours (grade.hpp).

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

}  // namespace

// Runs `runner check` for one variant and judges every answer as it arrives. Progress is an
// answer to a case not answered before, nothing else the runner prints.
// schedule: an emulated GPU variant's (check_emulated), which is asked only the emulated_case()s;
// "" for any other. reordered_only: the cases that reordered() leaves out are neither asked for
// nor counted. short_because: why each case gets the short deadline of a hang before it
// (HangBudget), or "".
VariantResult check_variant(const RunnerVariant& v, GraderExercise& ex, const GradeOptions& o, const Runner& runner,
                            const fs::path& work, labkit::Progress& progress, const std::string& schedule,
                            bool reordered_only, const std::string& short_because) {
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

namespace {

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

}  // namespace

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

}  // namespace grader
