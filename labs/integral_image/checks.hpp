// What runs inside the grader's isolated child processes: checking one entry on every case, and
// timing one entry at every size. Results travel back as Reporter lines:
//   begin  <case>                                   (before each case: a heartbeat, and where a hang happened)
//   result <case> <status> <detail> <diff png>
//   todo   <message>                                (NotImplemented)
//   perf   <w> <h> <threads> <median> <min> <max> <runs> <e2e median> <pass 1..4 medians>
//   device <key> <value>
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "entries.hpp"
#include "isolate.hpp"
#include "labkit/image.hpp"
#include "labkit/timing.hpp"

namespace integral_image {

struct Case {
    std::string name;  // "1024x768 random"
    labkit::GrayImage input;
    labkit::HostImage<std::uint32_t> want;
};

struct TransposeCase {
    std::string name;
    labkit::HostImage<std::uint32_t> input;
    labkit::HostImage<std::uint32_t> want;
};

struct CheckSettings {
    std::string diff_dir;  // where diff PNGs go
    int threads = 1;       // OpenMP threads for cpu-openmp
};

struct PerfSettings {
    std::vector<int> sizes;    // square sizes
    std::vector<int> threads;  // OpenMP thread sweep
    labkit::RunPolicy policy;
    std::uint64_t seed = 0;
};

void check_entry(const Entry& entry, const std::vector<Case>& cases, const std::vector<TransposeCase>& transpose_cases,
                 const CheckSettings& settings, grader::Reporter& report);
void time_entry(const Entry& entry, const PerfSettings& settings, grader::Reporter& report);
// Sends "device" lines: available, reason, name, sms, cc, memory_gib, driver, runtime, copy_gbps.
void probe_device(bool measure_bandwidth, grader::Reporter& report);

// Shared by the CPU and GPU halves (checks.cpp, checks_gpu.cpp).
std::string mismatch_detail(const Case& c, labkit::View<const std::uint32_t> got, const std::string& diff_dir,
                            const std::string& variant, std::string& diff_path);
std::string transpose_mismatch_detail(const TransposeCase& c, labkit::View<const std::uint32_t> got);
std::string safe_file_name(std::string s);

#if LABKIT_HAVE_CUDA
void check_gpu(const Entry& entry, const std::vector<Case>& cases, const std::vector<TransposeCase>& transpose_cases,
               const CheckSettings& settings, grader::Reporter& report);
void time_gpu(const Entry& entry, const PerfSettings& settings, grader::Reporter& report);
#endif

}  // namespace integral_image

namespace integral_image {
// Runs one cpu or gpu entry on one image in this process (for `run`); throws for transposes.
labkit::HostImage<std::uint32_t> compute(const Entry& entry, const labkit::GrayImage& input, int threads);
#if LABKIT_HAVE_CUDA
labkit::HostImage<std::uint32_t> compute_gpu(const Entry& entry, const labkit::GrayImage& input);
#endif
}  // namespace integral_image
