// The grader's results for one lab run, and every way they are shown: terminal tables, Markdown,
// CSV and JSON.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "entries.hpp"
#include "grading.hpp"
#include "isolate.hpp"
#include "labkit/device_info.hpp"
#include "verdict.hpp"

namespace integral_image {

struct CaseResult {
    std::string name;
    grader::Status status = grader::Status::pass;
    std::string detail;
    std::string diff;  // path of the diff PNG, if any
};

struct EntryResult {
    Entry entry;
    grader::Status status = grader::Status::pass;
    std::string detail;
    int cases_passed = 0, cases_failed = 0, cases_total = 0;
    std::vector<CaseResult> cases;
};

struct PerfPoint {
    std::string variant;
    EntryKind kind = EntryKind::cpu;
    int width = 0, height = 0;
    int threads = 0;  // CPU entries; 0 for GPU
    double ms = 0, min_ms = 0, max_ms = 0;  // kernels only for GPU entries (CUDA events), whole call for CPU
    int runs = 0;
    double e2e_ms = 0;  // GPU: copy in + kernels + copy out; CPU: same as ms
    std::array<double, kPasses> pass_ms{};
};

struct Report {
    std::string lab, label;
    std::uint64_t seed = 0;
    labkit::DeviceInfo device;
    labkit::HostInfo host;
    std::vector<EntryResult> results;
    std::vector<Entry> extra_entries;  // timed for reference only (the baseline, when filtered out)
    std::vector<PerfPoint> perf;
    std::vector<std::string> perf_problems;
};

labkit::DeviceInfo parse_device(const grader::ChildOutcome& probe);
void print_environment(const Report& r);
void print_correctness(const Report& r);
void print_performance(const Report& r);
void write_files(const Report& r, const std::string& json, const std::string& csv, const std::string& markdown);

}  // namespace integral_image
