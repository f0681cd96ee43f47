#include "session.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <stdexcept>

#ifndef LABKIT_PROBE_PATH
#error "meson passes LABKIT_PROBE_PATH: the device probe program"
#endif

namespace grader {

namespace fs = std::filesystem;

GraderExercise& find_exercise(const Exercises& exercises, const std::string& name) {
    for (const auto& e : exercises)
        if (e->info().name == name) return *e;
    throw std::runtime_error("the runner names an exercise this lab does not have: '" + name + "'");
}

std::vector<RunnerVariant> list_variants(const std::string& runner, const Exercises& exercises, double timeout_s) {
    if (::access(runner.c_str(), X_OK) != 0)
        throw std::runtime_error("no runner program at '" + runner + "' (build it first: ./labkit build)");
    const auto out = spawn({runner, "list", "--report-fd", std::to_string(kReportFd)}, {timeout_s, ""});
    if (out.end != ChildOutcome::End::exited || out.exit_code != 0)
        throw std::runtime_error("'" + runner + " list' failed: " + out.describe());
    std::vector<RunnerVariant> variants;
    for (const auto& e : exercises) {
        const auto info = e->info();
        variants.push_back({info.name, info.reference_name, "cpu", "the reference (the grader's own)", true});
        for (const auto& [key, value] : out.lines) {
            if (key != "variant") continue;
            auto f = split_tabs(value);
            f.resize(4);
            find_exercise(exercises, f[0]);  // an unknown exercise is an error, not a row
            if (f[0] == info.name) variants.push_back({f[0], f[1], f[2], f[3], false});
        }
    }
    return variants;
}

labkit::DeviceInfo probe_device(bool measure_bandwidth, double timeout_s) {
    std::vector<std::string> argv{LABKIT_PROBE_PATH};
    if (measure_bandwidth) argv.push_back("--bandwidth");
    const auto probe = spawn(argv, {timeout_s, ""});
    std::map<std::string, std::string> kv;
    for (const auto& [key, value] : probe.lines)
        if (key == "device") {
            const auto tab = value.find('\t');
            kv[value.substr(0, tab)] = tab == std::string::npos ? "" : value.substr(tab + 1);
        }
    labkit::DeviceInfo d;
    if (kv.empty()) {  // (before any kv[...] below, which would insert keys)
        d.unavailable_reason = "the device probe " + std::string(LABKIT_PROBE_PATH) + " failed: " + probe.describe() +
                               " (./labkit build makes it)";
        return d;
    }
    d.available = kv["available"] == "1";
    d.unavailable_reason = kv["reason"];
    d.name = kv["name"];
    d.driver_version = kv["driver"];
    d.runtime_version = kv["runtime"];
    try {
        if (!kv["sms"].empty()) d.sms = std::stoi(kv["sms"]);
        if (!kv["cc_major"].empty()) d.cc_major = std::stoi(kv["cc_major"]);
        if (!kv["cc_minor"].empty()) d.cc_minor = std::stoi(kv["cc_minor"]);
        if (!kv["memory_gib"].empty()) d.memory_gib = std::stod(kv["memory_gib"]);
        if (!kv["copy_gbps"].empty()) d.copy_gbps = std::stod(kv["copy_gbps"]);
        if (!kv["fma_gflops"].empty()) d.fma_gflops = std::stod(kv["fma_gflops"]);
    } catch (const std::exception&) {
        d.available = false;
        d.unavailable_reason = "the device probe's answer was malformed";
    }
    return d;
}

namespace {

bool has_room(const fs::path& dir, std::uintmax_t bytes) {
    struct statvfs s{};
    if (::statvfs(dir.c_str(), &s) != 0) return false;
    return static_cast<std::uintmax_t>(s.f_bavail) * s.f_frsize > bytes && ::access(dir.c_str(), W_OK) == 0;
}

}  // namespace

WorkDir::WorkDir(std::uintmax_t bytes_needed) {
    const fs::path shm = "/dev/shm";  // files there live in memory: no disk traffic for the cases
    fs::path base = has_room(shm, bytes_needed) ? shm : fs::temp_directory_path();
    std::string pattern = (base / "labkit-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a working folder in " + base.string());
    path_ = pattern;
}

WorkDir::~WorkDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

}  // namespace grader
