// The grader's results for one lab run: what every report (terminal, Markdown, CSV, JSON) shows.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "labkit/device_info.hpp"
#include "protocol.hpp"
#include "verdict.hpp"

namespace protocol {

struct StageInfo {
    std::string name;
    double bytes_per_pixel = 0;
};

// A table of a subset of the variants (protocol::PerfView).
struct ViewInfo {
    std::string title, glob, versus;
};

// What the reports need to know of an exercise.
struct ExerciseInfo {
    std::string name;
    std::string reference_name;
    double min_bytes_per_pixel = 0;  // the floor: read the input once, write the output once
    std::vector<StageInfo> stages;   // empty: a single kernel, no per-stage columns
    std::vector<std::string> perf_patterns{"random"};  // the timed images' patterns, tables for each
    std::vector<std::string> perf_params{""};  // labels of the timed parameters, tables for each
    std::vector<std::string> default_perf_params{""};  // those timed without --perf-params (not on_request)
    std::vector<ViewInfo> views;
};

// A case's size class, by the pixels of its input: strips and tiny images show section and
// boundary bugs, medium ones indexing bugs, large ones what only many blocks or big sums bring
// out. The reports show a failing variant's first failure of each class, and only its first wrong
// output of each class gets a diff image (checking.cpp).
enum class SizeClass { tiny, medium, large };
inline constexpr std::array kSizeClasses = {SizeClass::tiny, SizeClass::medium, SizeClass::large};

inline SizeClass size_class(long long pixels) {
    constexpr long long kSmall = 1LL << 16, kLarge = 1LL << 20;
    return pixels < kSmall ? SizeClass::tiny : pixels < kLarge ? SizeClass::medium : SizeClass::large;
}

inline const char* size_class_label(SizeClass c) {
    switch (c) {
        case SizeClass::tiny: return "strip or tiny (< 64K px)";
        case SizeClass::medium: return "medium (< 1M px)";
        case SizeClass::large: return "large (>= 1M px)";
    }
    return "";
}

struct CaseResult {
    std::string name;
    long long pixels = 0;  // of the case's input: failures are shown by size class
    Status status = Status::pass;
    std::string detail;
    std::string diff;  // path of the diff PNG, if any
    bool lab_case = false;  // one of the lab's own cases (GraderExercise::lab_case)
};

// What compute-sanitizer said of a variant's check (grade --sanitize).
struct SanitizerResult {
    std::string tool;
    bool clean = true;
    bool checked = true;  // false: the check ended early (timeout, crash, error) without a finding
    std::vector<std::string> findings;  // its first report lines; may be empty when only its exit said so
    std::string report;                 // where its whole report was kept (beside the diff images); may be empty
};

struct VariantResult {
    std::string exercise, name, summary;
    std::string kind;  // "cpu" or "gpu"
    bool reference = false;
    bool peer = false;  // a library's row (the lab's peers): compared with, never scored
    Status status = Status::pass;
    std::string detail;
    int cases_passed = 0, cases_failed = 0, cases_total = 0;
    std::vector<CaseResult> cases;
    std::vector<std::string> flags;  // why its timings were flagged for review (then left out)
    std::vector<std::string> notes;  // what its timings showed that costs nothing (kept in the tables)
    std::optional<SanitizerResult> sanitizer;  // only when it ran under one
};

struct PerfPoint {
    std::string exercise, variant, kind;
    PerfLine line;
    double flops_per_pixel = 0;  // the contract's, for this variant and parameters; 0: not stated
};

struct Report {
    std::string lab, label;
    std::uint64_t seed = 0;
    std::string sandbox;  // how the student code ran: "bubblewrap, uid 65534", or "not sandboxed: ..."
    labkit::DeviceInfo device;
    labkit::HostInfo host;
    std::vector<ExerciseInfo> exercises;
    std::vector<VariantResult> results;
    std::vector<PerfPoint> perf;
    std::vector<std::string> perf_problems;
    double cpu_max_gflop = 0;  // CPU calls counting more were not timed (--cpu-max-gflop)
    std::string timing_photo;  // the photo the `photo` pattern tiled: "name, WxH"; empty: none timed
    bool emulated = false;     // the GPU variants ran on the CPU (grade --emulate)
};

}  // namespace protocol
