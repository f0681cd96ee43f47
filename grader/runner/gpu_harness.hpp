// The host side of every GPU variant, written once for every lab: device images for the input
// and the output (pitched, with guard space), the pool of intermediate images, poisoning, the
// guard check, and timing with an L2 flush and named stages. CUDA builds only.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "exercise.hpp"
#include "labkit/device_buffer.hpp"
#include "labkit/gpu_timing.hpp"
#include "labkit/image_pool.hpp"
#include "labkit/timing.hpp"
#include "protocol.hpp"

namespace runner {

// This side is built on what both sides share (grader/protocol/), named unqualified here.
using namespace protocol;

template <class C>
class GpuHarness {
public:
    using In = typename C::In;
    using Out = typename C::Out;
    using Params = typename C::Params;

    // The pinned host buffers are the only way between the host and the device: a pitched copy
    // from or to pageable memory is staged row by row by the driver, which made one 8192^2 case
    // of a correctness check cost about a second more than it does from pinned memory.
    GpuHarness(int width, int height, std::pair<int, int> out_size)
        : in_(width, height),
          out_(out_size.first, out_size.second),
          pool_(poison_byte<Out>()),
          host_in_(static_cast<std::size_t>(width) * height),
          host_out_(static_cast<std::size_t>(out_size.first) * out_size.second) {}

    bool fits(int width, int height, std::pair<int, int> out_size) const {
        return in_.width() == width && in_.height() == height && out_.width() == out_size.first &&
               out_.height() == out_size.second;
    }

    // Poisons the input's guard space and every output, then copies the input in (through the
    // pinned buffer).
    void load(labkit::View<const In> host) {
        const auto staged = staging();
        for (int y = 0; y < host.height; ++y)
            std::copy(host.row(y), host.row(y) + host.width, staged.data + static_cast<std::size_t>(y) * staged.pitch);
        load_staged();
    }
    // The pinned input buffer, for a caller that fills it itself (straight from a case file);
    // load_staged() then does what load() does after its copy.
    labkit::View<In> staging() const { return pinned_in(); }
    void load_staged() {
        labkit::poison(in_, poison_byte<In>(), stream());
        poison_outputs();
        labkit::upload(labkit::View<const In>(pinned_in()), in_, stream());
        stream_.synchronize();
    }
    void poison_outputs() {
        labkit::poison(out_, poison_byte<Out>(), stream());
        pool_.poison_all(stream());
    }

    // One run of the variant, timed by the stage clock.
    void run(const Variant<C>& v, const Params& params) {
        labkit::GpuContext ctx{stream(), &workspace_, &pool_, &clock_};
        if (v.setup) v.setup(params, ctx);  // before the kernel clock starts
        clock_.start(stream());
        v.gpu(in_.cview(), out_.view(), params, ctx);
        clock_.finish(stream());
    }

    // The output, in the pinned buffer: valid until the next download.
    labkit::View<const Out> download() {
        const auto host = pinned_out();
        labkit::download(out_, host, stream());
        stream_.synchronize();
        return host;
    }

    // The output's digest (labkit/digest.hpp), computed where it is.
    std::uint64_t digest() { return labkit::device_digest(out_, stream()); }

    // "" when no write left an image; else which one, and where.
    std::string guard_report() {
        if (auto hit = labkit::guard_report(out_, poison_byte<Out>(), "the output", stream()); !hit.empty()) return hit;
        return pool_.guard_report_all(stream());
    }

    // Kernels only (input on the device, cold L2), then end to end (copy in from pinned memory,
    // kernels, copy out). Medians; stage times from the runs' own events. Every run gets a fresh
    // input (`fresh(run)`, run -1 the warm-up) and re-poisoned outputs, untimed; the policy counts
    // whole runs, so large images get fewer runs. After each kernels-only run, the wait for the
    // device to go idle is measured: work still running after the stop event (on a stream of its
    // own) was not timed, and late_ms says so. `finished(*this)` runs after every timed run of
    // either kind, untimed, with the run's output on the device (download() hands it over).
    using FreshInput = std::function<const labkit::HostImage<In>&(int run)>;
    using Finished = std::function<void(GpuHarness&)>;
    PerfLine time(const Variant<C>& v, const Params& params, const FreshInput& fresh, const labkit::RunPolicy& policy,
                  const Finished& finished) {
        labkit::L2Flusher flusher;
        load(fresh(-1).view());
        labkit::CpuTimer first;
        run(v, params);  // warm-up: module load, workspace and pool allocation
        stream_.synchronize();
        const double first_ms = first.elapsed_ms();
        clock_.total_ms();

        std::vector<double> total, late;
        std::vector<std::vector<double>> stages;
        labkit::CpuTimer wall;
        while (policy.more(static_cast<int>(total.size()), wall.elapsed_ms())) {
            load(fresh(static_cast<int>(total.size())).view());
            flusher.flush(stream());
            run(v, params);
            total.push_back(clock_.total_ms());
            labkit::CpuTimer idle;
            CUDA_CHECK(cudaDeviceSynchronize());
            late.push_back(idle.elapsed_ms());
            const auto ms = clock_.stage_ms();
            stages.resize(ms.size());
            for (std::size_t i = 0; i < ms.size(); ++i) stages[i].push_back(ms[i]);
            finished(*this);
        }

        const int width = in_.width(), height = in_.height();
        const labkit::View<const In> in_view = pinned_in();
        const labkit::View<Out> out_view = pinned_out();
        std::vector<double> e2e;
        labkit::CudaEvent start, stop;
        wall.start();
        while (policy.more(static_cast<int>(e2e.size()), wall.elapsed_ms())) {
            const auto& input = fresh(static_cast<int>(total.size() + e2e.size()));
            std::copy(input.data(), input.data() + input.pixels(), host_in_.data());
            poison_outputs();
            flusher.flush(stream());
            start.record(stream());
            labkit::upload(in_view, in_, stream());
            run(v, params);
            labkit::download(out_, out_view, stream());
            stop.record(stream());
            e2e.push_back(labkit::elapsed_ms(start, stop));
            finished(*this);
        }

        const auto s = labkit::summarize(total);
        PerfLine line{.params = {}, .width = width, .height = height, .ms = s.median, .min_ms = s.min, .max_ms = s.max,
                      .runs = s.runs, .e2e_ms = labkit::summarize(e2e).median, .cpu_ms = 0,
                      .late_ms = labkit::summarize(late).median, .first_ms = first_ms, .stage_ms = {}};
        if (stages.size() > 1)
            for (const auto& st : stages) line.stage_ms.push_back(labkit::summarize(st).median);
        return line;
    }

    cudaStream_t stream() const { return stream_.get(); }

private:
    labkit::View<In> pinned_in() const {
        return {host_in_.data(), in_.width(), in_.height(), static_cast<std::size_t>(in_.width())};
    }
    labkit::View<Out> pinned_out() const {
        return {host_out_.data(), out_.width(), out_.height(), static_cast<std::size_t>(out_.width())};
    }

    labkit::DeviceImage<In> in_;
    labkit::DeviceImage<Out> out_;
    labkit::ImagePool pool_;
    labkit::Workspace workspace_;
    labkit::StageClock clock_;
    labkit::CudaStream stream_;
    labkit::PinnedBuffer<In> host_in_;
    labkit::PinnedBuffer<Out> host_out_;
};

}  // namespace runner
