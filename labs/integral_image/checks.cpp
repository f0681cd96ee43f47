#include "checks.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "compare.hpp"
#include "grading.hpp"
#include "labkit/device_info.hpp"
#include "labkit/errors.hpp"
#include "labkit/generators.hpp"
#include "labkit/table.hpp"

namespace integral_image {

using labkit::HostImage;
using u32 = std::uint32_t;

std::string safe_file_name(std::string s) {
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
    return s;
}

std::string mismatch_detail(const Case& c, labkit::View<const u32> got, const std::string& diff_dir,
                            const std::string& variant, std::string& diff_path) {
    const auto m = grader::compare<u32>(got, c.want.view(), kPoison);
    if (m.ok()) return "";
    const std::string detail = grader::describe(m, got.pixels());
    if (!diff_dir.empty()) {
        std::filesystem::create_directories(diff_dir);
        diff_path = diff_dir + "/" + safe_file_name(variant + "_" + c.name) + ".png";
        grader::write_diff_png<u32>(diff_path, c.input.view(), got, c.want.view(), kPoison);
    }
    return detail;
}

std::string transpose_mismatch_detail(const TransposeCase& c, labkit::View<const u32> got) {
    const auto m = grader::compare<u32>(got, c.want.view(), kPoison);
    if (m.ok()) return "";
    return grader::describe(m, got.pixels());
}

namespace {

void run_cpu(const Variant& v, Input in, Output out, int threads) {
    if (v.kind == Kind::cpu_openmp)
        cpu_openmp(in, out, threads);
    else
        cpu_sequential(in, out);
}

void check_cpu(const Entry& entry, const std::vector<Case>& cases, const CheckSettings& settings,
               grader::Reporter& report) {
    for (const auto& c : cases) {
        report.send("begin", c.name);
        HostImage<u32> got(c.input.width(), c.input.height(), kPoison);
        run_cpu(*entry.variant, c.input.view(), got.view(), settings.threads);
        std::string diff;
        const std::string detail = mismatch_detail(c, got.view(), settings.diff_dir, entry.name, diff);
        report.send("result", c.name + "\t" + (detail.empty() ? "pass" : "fail") + "\t" + detail + "\t" + diff);
    }
}

void time_cpu(const Entry& entry, const PerfSettings& settings, grader::Reporter& report) {
    const bool sweep = entry.variant->kind == Kind::cpu_openmp;
    const std::vector<int> threads = sweep ? settings.threads : std::vector<int>{1};
    for (int n : settings.sizes) {
        const auto input = labkit::generate(labkit::Pattern::random, n, n, settings.seed);
        HostImage<u32> out(n, n);
        for (int t : threads) {
            report.send("begin", std::to_string(n) + "x" + std::to_string(n) + " threads=" + std::to_string(t));
            run_cpu(*entry.variant, input.view(), out.view(), t);  // warm-up: page faults, thread pool
            std::vector<double> ms;
            double total = 0;
            while (settings.policy.more(static_cast<int>(ms.size()), total)) {
                labkit::CpuTimer timer;
                run_cpu(*entry.variant, input.view(), out.view(), t);
                ms.push_back(timer.elapsed_ms());
                total += ms.back();
            }
            const auto s = labkit::summarize(ms);
            report.send("perf", std::to_string(n) + "\t" + std::to_string(n) + "\t" + std::to_string(t) + "\t" +
                                    std::to_string(s.median) + "\t" + std::to_string(s.min) + "\t" +
                                    std::to_string(s.max) + "\t" + std::to_string(s.runs) + "\t" +
                                    std::to_string(s.median) + "\t\t\t\t");
        }
    }
}

// Runs body, turning "not implemented yet" into a TODO line instead of an exception.
template <class F>
void reporting_todo(grader::Reporter& report, F&& body) {
    try {
        body();
    } catch (const labkit::NotImplemented& e) {
        report.send("todo", e.what());
    }
}

}  // namespace

void check_entry(const Entry& entry, const std::vector<Case>& cases, const std::vector<TransposeCase>& transpose_cases,
                 const CheckSettings& settings, grader::Reporter& report) {
    reporting_todo(report, [&] {
        if (entry.kind == EntryKind::cpu) return check_cpu(entry, cases, settings, report);
#if LABKIT_HAVE_CUDA
        check_gpu(entry, cases, transpose_cases, settings, report);
#else
        (void)transpose_cases;
#endif
    });
}

void time_entry(const Entry& entry, const PerfSettings& settings, grader::Reporter& report) {
    reporting_todo(report, [&] {
        if (entry.kind == EntryKind::cpu) return time_cpu(entry, settings, report);
#if LABKIT_HAVE_CUDA
        time_gpu(entry, settings, report);
#endif
    });
}

void probe_device(bool measure_bandwidth, grader::Reporter& report) {
    auto info = labkit::query_device();
    if (info.available && measure_bandwidth) labkit::measure_copy_bandwidth(info);
    report.send("device", "available\t" + std::string(info.available ? "1" : "0"));
    report.send("device", "reason\t" + info.unavailable_reason);
    report.send("device", "name\t" + info.name);
    report.send("device", "sms\t" + std::to_string(info.sms));
    report.send("device", "cc\t" + std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor));
    report.send("device", "memory_gib\t" + labkit::format_fixed(info.memory_gib, 1));
    report.send("device", "driver\t" + info.driver_version);
    report.send("device", "runtime\t" + info.runtime_version);
    report.send("device", "copy_gbps\t" + labkit::format_fixed(info.copy_gbps, 1));
}

HostImage<u32> compute(const Entry& entry, const labkit::GrayImage& input, int threads) {
    if (entry.kind == EntryKind::transpose)
        throw std::invalid_argument(entry.name + " is part of the transpose exercise; `run` takes integral-image variants");
#if LABKIT_HAVE_CUDA
    if (entry.kind == EntryKind::gpu) return compute_gpu(entry, input);
#endif
    HostImage<u32> out(input.width(), input.height(), kPoison);
    run_cpu(*entry.variant, input.view(), out.view(), threads);
    return out;
}

std::vector<Entry> all_entries() {
    std::vector<Entry> entries;
    for (const auto& v : variants())
        entries.push_back({std::string(v.name), std::string(v.summary),
                           v.kind == Kind::gpu_pipeline ? EntryKind::gpu : EntryKind::cpu, &v, nullptr});
    for (const auto& t : transpose_variants())
        entries.push_back({std::string(t.name), std::string(t.summary), EntryKind::transpose, nullptr, &t});
    return entries;
}

const char* kind_name(EntryKind k) {
    switch (k) {
        case EntryKind::cpu: return "cpu";
        case EntryKind::gpu: return "gpu";
        case EntryKind::transpose: return "transpose";
    }
    return "?";
}

}  // namespace integral_image
