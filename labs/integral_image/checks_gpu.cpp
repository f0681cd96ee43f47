// The GPU half of the grader's child processes: every GPU entry goes through the same runner,
// so no variant has host code of its own.
#include <memory>

#include "checks.hpp"
#include "gpu_pipeline.hpp"
#include "labkit/device_buffer.hpp"
#include "labkit/generators.hpp"

namespace integral_image {

using labkit::HostImage;
using u32 = std::uint32_t;

namespace {

std::string size_name(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

void check_pipeline(const Entry& entry, const std::vector<Case>& cases, const CheckSettings& settings,
                    grader::Reporter& report) {
    // One size's buffers at a time (8192^2 needs ~1.3 GB), reused across that size's patterns.
    std::unique_ptr<PipelineRunner> runner;
    std::pair<int, int> runner_size{-1, -1};
    for (const auto& c : cases) {
        report.send("begin", c.name);
        const std::pair size{c.input.width(), c.input.height()};
        if (size != runner_size) {
            runner.reset();  // free the old buffers before allocating the new ones
            runner = std::make_unique<PipelineRunner>(size.first, size.second);
            runner_size = size;
        }
        runner->load(c.input.view());
        runner->run(entry.variant->pipeline);
        HostImage<u32> got(c.input.width(), c.input.height());
        runner->download(got.view());
        std::string diff;
        std::string detail = mismatch_detail(c, got.view(), settings.diff_dir, entry.name, diff);
        if (const auto guard = runner->guard_report(); !guard.empty())
            detail = guard + (detail.empty() ? "" : "; " + detail);
        report.send("result", c.name + "\t" + (detail.empty() ? "pass" : "fail") + "\t" + detail + "\t" + diff);
    }
}

void check_transpose(const Entry& entry, const std::vector<TransposeCase>& cases, grader::Reporter& report) {
    for (const auto& c : cases) {
        report.send("begin", c.name);
        TransposeRunner runner(c.input.width(), c.input.height());
        runner.load(c.input.view());
        runner.run(*entry.transpose);
        HostImage<u32> got(c.input.height(), c.input.width());
        runner.download(got.view());
        std::string detail = transpose_mismatch_detail(c, got.view());
        if (const auto guard = runner.guard_report(); !guard.empty())
            detail = guard + (detail.empty() ? "" : "; " + detail);
        report.send("result", c.name + "\t" + (detail.empty() ? "pass" : "fail") + "\t" + detail + "\t");
    }
}

std::string stats_fields(const labkit::Stats& s) {
    return std::to_string(s.median) + "\t" + std::to_string(s.min) + "\t" + std::to_string(s.max) + "\t" +
           std::to_string(s.runs);
}

void time_pipeline(const Entry& entry, const PerfSettings& settings, grader::Reporter& report) {
    labkit::L2Flusher flusher;
    for (int n : settings.sizes) {
        report.send("begin", size_name(n, n));
        const auto image = labkit::generate(labkit::Pattern::random, n, n, settings.seed);
        labkit::PinnedBuffer<std::uint8_t> pinned_in(image.pixels());
        labkit::PinnedBuffer<u32> pinned_out(image.pixels());
        std::copy(image.data(), image.data() + image.pixels(), pinned_in.data());
        const Input in_view{pinned_in.data(), n, n, static_cast<std::size_t>(n)};
        const Output out_view{pinned_out.data(), n, n, static_cast<std::size_t>(n)};

        PipelineRunner runner(n, n);
        runner.load(image.view());
        runner.run(entry.variant->pipeline);  // warm-up: module load, workspace allocation
        runner.total_ms();

        // Kernels only: the four passes, cold L2, input already on the device.
        std::vector<double> total;
        std::array<std::vector<double>, kPasses> passes;
        double sum = 0;
        while (settings.policy.more(static_cast<int>(total.size()), sum)) {
            flusher.flush(runner.stream());
            runner.run(entry.variant->pipeline);
            total.push_back(runner.total_ms());
            const auto p = runner.pass_ms();
            for (int i = 0; i < kPasses; ++i) passes[i].push_back(p[i]);
            sum += total.back();
        }
        // End to end: copy in from pinned memory, four passes, copy out.
        std::vector<double> e2e;
        labkit::CudaEvent start, stop;
        sum = 0;
        while (settings.policy.more(static_cast<int>(e2e.size()), sum)) {
            flusher.flush(runner.stream());
            start.record(runner.stream());
            runner.load_async(in_view);
            runner.run(entry.variant->pipeline);
            runner.download_async(out_view);
            stop.record(runner.stream());
            e2e.push_back(labkit::elapsed_ms(start, stop));
            sum += e2e.back();
        }
        std::string line = std::to_string(n) + "\t" + std::to_string(n) + "\t0\t" + stats_fields(labkit::summarize(total)) + "\t" +
               std::to_string(labkit::summarize(e2e).median);
        for (const auto& p : passes) {
            line += '\t';
            line += std::to_string(labkit::summarize(p).median);
        }
        report.send("perf", line);
    }
}

void time_transpose(const Entry& entry, const PerfSettings& settings, grader::Reporter& report) {
    labkit::L2Flusher flusher;
    for (int n : settings.sizes) {
        report.send("begin", size_name(n, n));
        HostImage<u32> input(n, n);
        for (std::size_t i = 0; i < input.pixels(); ++i)
            input.data()[i] = static_cast<u32>(labkit::mix64(settings.seed ^ i));
        TransposeRunner runner(n, n);
        runner.load(input.view());
        runner.run(*entry.transpose);  // warm-up
        runner.ms();
        std::vector<double> ms;
        double sum = 0;
        while (settings.policy.more(static_cast<int>(ms.size()), sum)) {
            flusher.flush(runner.stream());
            runner.run(*entry.transpose);
            ms.push_back(runner.ms());
            sum += ms.back();
        }
        const auto s = labkit::summarize(ms);
        report.send("perf", std::to_string(n) + "\t" + std::to_string(n) + "\t0\t" + stats_fields(s) + "\t\t\t\t\t");
    }
}

}  // namespace

HostImage<u32> compute_gpu(const Entry& entry, const labkit::GrayImage& input) {
    PipelineRunner runner(input.width(), input.height());
    runner.load(input.view());
    runner.run(entry.variant->pipeline);
    HostImage<u32> out(input.width(), input.height());
    runner.download(out.view());
    return out;
}

void check_gpu(const Entry& entry, const std::vector<Case>& cases, const std::vector<TransposeCase>& transpose_cases,
               const CheckSettings& settings, grader::Reporter& report) {
    if (entry.kind == EntryKind::transpose) return check_transpose(entry, transpose_cases, report);
    check_pipeline(entry, cases, settings, report);
}

void time_gpu(const Entry& entry, const PerfSettings& settings, grader::Reporter& report) {
    if (entry.kind == EntryKind::transpose) return time_transpose(entry, settings, report);
    time_pipeline(entry, settings, report);
}

}  // namespace integral_image
