// Timing: a passing variant's measurements (time_variant), each timed run on a fresh input whose
// outputs the grader checks at random, and the flags and notes the timings earn.
#include "perf_timing.hpp"


#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
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

namespace fs = std::filesystem;

namespace {


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

}  // namespace

// An exercise as this grading times it: --perf-patterns replaces the contract's perf_patterns,
// and --quick (PerfSettings::first_only) keeps the first of its patterns and timed parameters.
ExerciseInfo timed_info(const GraderExercise& ex, const GradeOptions& o) {
    auto info = ex.info();
    if (!o.perf.patterns.empty()) info.perf_patterns = o.perf.patterns;
    else if (o.perf.first_only && info.perf_patterns.size() > 1) info.perf_patterns.resize(1);
    if (o.perf.first_only && info.default_perf_params.size() > 1) info.default_perf_params.resize(1);
    return info;
}

namespace {

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

}  // namespace

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

}  // namespace grader
