// The runner's side of the harness: the program built once per code base (the starter, the
// solution, or a submission) that runs one variant on the cases the grader wrote and hands back
// its answers and timings (grader/protocol/protocol.hpp). It links only this, the lab's runner-side kit
// files and the student files; the reference and the expected outputs never enter it.
//
// A lab writes no main(): labs/meson.build generates it from grader/runner/lab_runner.cpp.in, which
// hands runner_main() the tables of the lab's declaration (kit/lab.hpp).
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpu_timing.hpp"
#include "exercise.hpp"
#include "lab_declaration.hpp"
#include "labkit/device_info.hpp"
#include "labkit/gpu_limits.hpp"
#include "labkit/guard.hpp"
#include "labkit/image_io.hpp"
#include "report_pipe.hpp"
#include "protocol.hpp"
#if LABKIT_HAVE_CUDA
#include "gpu_harness.hpp"
#endif

namespace runner {

// This side is built on what both sides share (grader/protocol/), named unqualified here.
using namespace protocol;

// A runner built for CPU emulation (emulate/meson.build): its GPU variants run on HIP-CPU, and it
// says so in `list`, so that the grader never reads their verdicts as a GPU's.
#if defined(LABKIT_EMULATED)
inline constexpr bool kEmulated = true;
#else
inline constexpr bool kEmulated = false;
#endif

struct CheckRequest {
    std::string manifest, answers;
    int threads = 1;
    std::vector<std::size_t> digest;  // cases whose GPU answer is sent as a digest, not a file
    std::vector<std::size_t> only;    // the cases to answer; empty: all
};

struct TimeRequest {
    std::vector<labkit::Pattern> patterns;
    std::vector<std::string> params;  // labels of the contract's perf_params; empty: all but on_request
    std::vector<int> sizes, threads;
    labkit::RunPolicy policy;
    std::string answers;  // where the checked output of each measurement goes; empty: nowhere
    double cpu_max_flops = kCpuPerfMaxFlops;  // CPU timings whose one call would exceed it are left out
};

class RunnerExercise {
public:
    virtual ~RunnerExercise() = default;
    virtual std::string_view name() const = 0;
    virtual void list(Reporter& report) const = 0;
    virtual bool has(const std::string& variant) const = 0;
    virtual void check(const std::string& variant, const CheckRequest& request, Reporter& report) const = 0;
    virtual void time(const std::string& variant, const TimeRequest& request, Reporter& report) const = 0;
    // Without a GPU: calls a GPU variant on non-empty images (kDryShapes) with CUDA errors
    // counted, not thrown (labkit::set_dry_run), so that its host code runs to its launches: a
    // step not written yet throws NotImplemented (TODO), one whose host code throws or launches
    // what no GPU would start (launch_check.cpp) is an error, and one that runs through is
    // "compiled", not checked. as_sm: the GPU it stands for (labkit::set_dry_run), 0 for the build's.
    virtual void dry(const std::string& variant, int as_sm, Reporter& report) const = 0;
};

// The images a dry run calls a GPU step on: small and awkward (no multiple of any block size), a
// single pixel, and the tallest and widest strips an image may be (labkit::kMaxImageSide), whose
// grids must stay within CUDA's (a grid of one block per row is one too tall: labkit::kMaxGridY).
// Only their sizes matter: no memory is allocated for them.
inline constexpr std::pair<int, int> kDryShapes[] = {
    {37, 19}, {1, 1}, {1, labkit::kMaxImageSide}, {labkit::kMaxImageSide, 1}};

// Where a kernel's host stub lies in the runner's own file, as an offset (hex), which `nm` maps to
// the kernel's name; "-" for none.
std::string stub_offset(const void* stub);

#if LABKIT_HAVE_CUDA
// Why the GPU in use cannot run a row that needs `needs` with these parameters ("" when it can,
// or when there is no GPU to ask: the run's own errors then say why).
template <class Params>
std::string unmet_needs(const Needs<Params>& needs, const Params& params) {
    const labkit::DeviceInfo& device = labkit::device_in_use();
    if (!device.available) return "";
    return labkit::unmet_needs(needs.min_cc, needs.feature, needs.shared_for(params), device.sm(), device.shared_optin);
}
#endif

template <class C>
class RunnerExerciseOf final : public RunnerExercise {
public:
    using In = typename C::In;
    using Out = typename C::Out;
    using Params = typename C::Params;

    // peers: the table holds the libraries' rows (Lab::peers), which `list` marks as such.
    explicit RunnerExerciseOf(std::span<const Variant<C>> table, bool peers = false) : table_(table), peers_(peers) {}

    std::string_view name() const override { return C::name; }

    void list(Reporter& report) const override {
        for (const auto& v : table_)
            report.send("variant", std::string(C::name) + "\t" + std::string(v.name) + "\t" +
                                       std::string(target_name(v.target())) + "\t" + std::string(v.summary) +
                                       (peers_ ? "\tpeer" : kEmulated && v.target() == Target::gpu ? "\temulated" : ""));
    }

    bool has(const std::string& variant) const override { return find(variant) != nullptr; }

    void check(const std::string& variant, const CheckRequest& r, Reporter& report) const override {
        const Variant<C>& v = *find(variant);
        const auto entries = read_manifest(r.manifest);
        const auto listed = [](const std::vector<std::size_t>& list, std::size_t i) {
            return std::find(list.begin(), list.end(), i) != list.end();
        };
#if LABKIT_HAVE_CUDA
        std::unique_ptr<GpuHarness<C>> gpu;  // one size's buffers at a time, reused across patterns
        if (v.gpu && !kEmulated)  // a row this GPU cannot run is skipped before any case, saying why
            for (const auto& e : entries)
                if (const Params params = C::parse_params(e.params); applies_to<C>(variant, params))
                    if (const auto why = unmet_needs(v.needs, params); !why.empty()) {
                        report.send("skip", why + (e.params == "-" ? "" : " (parameters " + e.params + ")"));
                        return;
                    }
#endif
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const Params params = C::parse_params(entries[i].params);
            if (!applies_to<C>(variant, params)) continue;  // the grader expects no answer
            if (!r.only.empty() && !listed(r.only, i)) continue;
            report.send("begin", std::to_string(i));
            std::string guard;
            if (v.cpu) {
                const auto input = read_raw<In>(entries[i].input);
                // Guard space around the output, as on the GPU: a write past the end is caught.
                const auto [w, h] = C::output_size(input.width(), input.height(), params);
                labkit::GuardedHostImage<Out> out(w, h, poison_byte<Out>());
                v.cpu(input.view(), out.view(), params, r.threads);
                guard = out.guard_report("the output");
                write_raw<Out>(r.answers + "/" + answer_name(i), out.cview());
            } else {
#if LABKIT_HAVE_CUDA
                RawFile input = open_raw(entries[i].input, sizeof(In));  // read straight into the pinned buffer
                const auto out_size = C::output_size(input.width, input.height, params);
                if (!gpu || !gpu->fits(input.width, input.height, out_size)) {
                    gpu.reset();  // free the old buffers before allocating the new ones
                    gpu = std::make_unique<GpuHarness<C>>(input.width, input.height, out_size);
                }
                read_rows(input, gpu->staging().data, gpu->staging().pitch);
                gpu->load_staged();
                gpu->run(v, params);
                guard = gpu->guard_report();
                if (listed(r.digest, i)) {  // the output never leaves the device
                    char digest[2 * sizeof(std::uint64_t) + 1];
                    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(gpu->digest()));
                    report.send("done", std::to_string(i) + "\t" + guard + "\t" + digest);
                    continue;
                }
                write_raw<Out>(r.answers + "/" + answer_name(i), gpu->download());
#endif
            }
            report.send("done", std::to_string(i) + "\t" + guard);
        }
    }

    void time(const std::string& variant, const TimeRequest& r, Reporter& report) const override {
        const Variant<C>& v = *find(variant);
        for (const auto& [label, params, on_request] : perf_params_of<C>()) {
            const bool chosen = r.params.empty() ? !on_request
                                                 : std::find(r.params.begin(), r.params.end(), label) != r.params.end();
            if (chosen && applies_to<C>(variant, params)) time_with(v, label, params, r, report);
        }
    }

    void dry(const std::string& variant, [[maybe_unused]] int as_sm, Reporter& report) const override {
        const Variant<C>& v = *find(variant);
        if (v.gpu) {
#if LABKIT_HAVE_CUDA
            labkit::set_dry_run(true, as_sm);
            labkit::Workspace workspace;
            labkit::ImagePool pool(poison_byte<Out>());
            labkit::GpuContext ctx{nullptr, &workspace, &pool, nullptr};
            auto all = perf_params_of<C>();
            all.push_back({"", default_params_of<C>()});
            for (const auto& [label, params, on_request] : all) {
                if (!applies_to<C>(variant, params)) continue;
                labkit::reset_dry_launches();
                if (v.setup) v.setup(params, ctx);
                for (const auto& [w, h] : kDryShapes) {
                    // Views of the right size over no memory: the device allocations a dry run
                    // makes fail too, and no kernel runs, so nothing is ever read or written.
                    const auto [ow, oh] = C::output_size(w, h, params);
                    const labkit::View<const In> in{nullptr, w, h, static_cast<std::size_t>(w)};
                    const labkit::View<Out> out{nullptr, ow, oh, static_cast<std::size_t>(ow)};
                    const auto where = [&] {
                        return " (" + std::string(variant) + " on a " + std::to_string(w) + "x" + std::to_string(h) +
                               " image" + (label.empty() ? "" : ", " + label) + ", in a dry run without a GPU)";
                    };
                    try {
                        v.gpu(in, out, params, ctx);
                        labkit::throw_launch_problem("");  // a launch no check followed
                    } catch (const labkit::NotImplemented&) {
                        throw;  // TODO, whatever the size
                    } catch (const labkit::NeedsNewerGpu& e) {
                        send_needs(v, label, params, report);
                        report.send("skip", e.what() + where());  // a verdict, not an error
                        return;
                    } catch (const std::exception& e) {
                        throw std::runtime_error(e.what() + where());
                    }
                }
                send_needs(v, label, params, report);
            }
#endif
        }
        report.send("compiled", std::string(variant));
    }

private:
    // A dry run's lines on what the launches of one set of parameters asked against what the row
    // declares (tests/resource_fit_selftest.py compares them for the reference; the grader ignores
    // them): needs <params label or -> <dynamic shared bytes asked> <declared> <declared compute
    // capability>, then one line per kind of launch: launch <params> <kernel> <threads> <dynamic
    // shared bytes> <bytes the kernel opted in to>, the kernel as its host stub's offset in the
    // runner's file (hex; - when unnamed). A build without CUDA has no launches to report.
#if LABKIT_HAVE_CUDA
    static void send_needs(const Variant<C>& v, const std::string& label, const Params& params, Reporter& report) {
        const std::string shown = label.empty() ? std::string("-") : label;
        report.send("needs", shown + "\t" + std::to_string(labkit::dynamic_shared_asked()) + "\t" +
                                 std::to_string(v.needs.shared_for(params)) + "\t" + std::to_string(v.needs.min_cc));
        std::set<std::string> kinds;
        for (const auto& l : labkit::dry_launches())
            kinds.insert(stub_offset(l.kernel) + "\t" + std::to_string(l.threads) + "\t" + std::to_string(l.shared_bytes) +
                         "\t" + std::to_string(l.opted_in));
        for (const auto& kind : kinds) report.send("launch", shown + "\t" + kind);
    }
#endif

    void time_with(const Variant<C>& v, const std::string& label, const Params& params, const TimeRequest& r,
                   Reporter& report) const {
        for (const labkit::Pattern pattern : r.patterns)
            for (const int n : r.sizes) {
                const std::string what = std::string(labkit::pattern_name(pattern)) + (label.empty() ? "" : " " + label) +
                                         " " + std::to_string(n) + "x" + std::to_string(n);
                // A fresh input for every run, from the seed the grader gives at its start; after each
                // timed run the grader says whether it checks that run's output (protocol.hpp).
                labkit::HostImage<In> input;
                auto fresh = [&](int run) -> const labkit::HostImage<In>& {
                    input = C::make_input(pattern, n, n, std::stoull(report.ask("seed", std::to_string(run))));
                    return input;
                };
                const std::string point = std::string(labkit::pattern_name(pattern)) + "\t" + label + "\t" +
                                          std::to_string(n) + "\t" + std::to_string(n);
                auto keep = [&](const std::function<labkit::View<const Out>()>& output) {
                    const std::string answer = report.ask("keep", point);
                    if (answer != "-" && !r.answers.empty())
                        write_raw<Out>(r.answers + "/" + answer_name(std::stoul(answer)), output());
                };
                auto send = [&](PerfLine line) {
                    line.pattern = labkit::pattern_name(pattern);
                    line.params = label;
                    report.send("perf", encode(line));
                };
                if (v.cpu) {
                    if (too_slow_for_cpu_timing<C>(v.name, params, n, r.cpu_max_flops)) continue;
                    const auto [w, h] = C::output_size(n, n, params);
                    labkit::GuardedHostImage<Out> out(w, h, poison_byte<Out>());
                    for (const int t : r.threads) {
                        report.send("begin", what + " threads=" + std::to_string(t));
                        auto prepare = [&](int run) {
                            fresh(run);
                            out.poison();
                        };
                        auto finish = [&](int) { keep([&] { return out.cview(); }); };
                        send(time_cpu_call([&] { v.cpu(input.view(), out.view(), params, t); }, n, n, t, r.policy, prepare,
                                           finish));
                    }
                } else {
#if LABKIT_HAVE_CUDA
                    report.send("begin", what);
                    const auto out_size = C::output_size(n, n, params);
                    if (!timed_gpu_ || !timed_gpu_->fits(n, n, out_size)) {
                        timed_gpu_.reset();  // the old size's buffers go before the new ones come
                        timed_gpu_ = std::make_unique<GpuHarness<C>>(n, n, out_size);
                    }
                    PerfLine line = timed_gpu_->time(v, params, fresh, r.policy,
                                                     [&](GpuHarness<C>& g) { keep([&] { return g.download(); }); });
                    if (first_call_ms_ < 0) first_call_ms_ = line.first_ms;  // this process's first call
                    line.first_ms = first_call_ms_;
                    send(line);
#endif
                }
            }
    }

    const Variant<C>* find(const std::string& name) const {
        for (const auto& v : table_)
            if (v.name == name) return &v;
        return nullptr;
    }

    std::span<const Variant<C>> table_;
    bool peers_ = false;
    mutable double first_call_ms_ = -1;   // the warm-up of the first measurement: module load included
#if LABKIT_HAVE_CUDA
    // The timed size's buffers, reused by the next measurement of that size (another pattern or
    // parameters), which would otherwise pin its host buffers anew (2 x 256 MiB at 8192^2 floats).
    mutable std::unique_ptr<GpuHarness<C>> timed_gpu_;
#endif
};

using RunnerExercises = std::vector<std::unique_ptr<RunnerExercise>>;

// The exercises of a lab's declaration (grader/protocol/lab_declaration.hpp), each with its table.
template <class... E>
RunnerExercises runner_exercises(ExerciseList<E...>) {
    RunnerExercises list;
    (list.push_back(std::make_unique<RunnerExerciseOf<typename E::Contract>>(E::table())), ...);
    return list;
}

// The solution's runner: its exercises, then the lab's peers (Lab::peers), whose tables hold the
// libraries' rows. An exercise may then appear twice; a variant is found by its exercise and name.
template <class... E, class... P>
RunnerExercises runner_exercises(ExerciseList<E...> exercises, ExerciseList<P...>) {
    RunnerExercises list = runner_exercises(exercises);
    (list.push_back(std::make_unique<RunnerExerciseOf<typename P::Contract>>(P::table(), true)), ...);
    return list;
}

int runner_main(int argc, char** argv, const RunnerExercises& exercises);

}  // namespace runner
