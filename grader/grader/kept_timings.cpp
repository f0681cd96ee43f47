#include "kept_timings.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "labkit/device_info.hpp"

extern char** environ;

namespace grader {
using namespace protocol;

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "labkit kept timing 1";  // the first line: any other layout is timed again
constexpr const char* kNote = "note\t", *kTimedAt = "timed_at\t", *kLine = "line\t";
// The environment variables whose values change a CPU timing: the OpenMP runtime's.
constexpr const char* kTimingEnvPrefixes[] = {"OMP_", "GOMP_"};

// The file of key in dir: named by the key's hash, the key itself compared on reading.
fs::path timing_file(const std::string& dir, const std::string& key) {
    return fs::path(dir) / (key_hash(key) + ".timing");
}

std::string one_line(std::string s) {
    std::replace_if(s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
    return s;
}

}  // namespace

std::string kept_timing_key(const std::string& exercise, const std::string& variant, const PerfSettings& s) {
    std::string key = exercise + " " + variant + " sizes=" + join_commas(s.sizes) + " params=" + join_commas(s.params) +
                      " patterns=" + join_commas(s.patterns) + " threads=" + join_commas(s.threads) +
                      " first_only=" + std::to_string(s.first_only) + " cpu_max_flops=" + std::to_string(s.cpu_max_flops) +
                      " fixed_runs=" + std::to_string(s.policy.fixed_runs);
    key += " photo=" + (s.photo.empty() ? std::string("-") : s.photo + ":" + file_identity(s.photo));
    key += " grader=" + file_identity("/proc/self/exe");
    key += " cpu=" + labkit::query_host().cpu_model + " cores=" + std::to_string(labkit::cores()) + "/" +
           std::to_string(labkit::machine_cores());
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        for (const char* prefix : kTimingEnvPrefixes)
            if (std::string_view(*e).starts_with(prefix)) env.emplace_back(*e);
    std::sort(env.begin(), env.end());
    key += " env=" + join_commas(env);
    return one_line(key);
}

std::optional<KeptTiming> read_kept_timing(const std::string& dir, const std::string& key) {
    std::ifstream in(timing_file(dir, key));
    std::string format, stored;
    if (!in || !std::getline(in, format) || format != kFormat || !std::getline(in, stored) || stored != key) return {};
    KeptTiming t;
    try {
        for (std::string line; std::getline(in, line);) {
            if (line.starts_with(kLine)) t.lines.push_back(decode_perf(line.substr(std::string_view(kLine).size())));
            else if (line.starts_with(kNote)) t.notes.push_back(line.substr(std::string_view(kNote).size()));
            else if (line.starts_with(kTimedAt)) t.timed_at = line.substr(std::string_view(kTimedAt).size());
            else return {};
        }
    } catch (const std::exception&) {
        return {};
    }
    if (t.lines.empty() || t.timed_at.empty()) return {};
    return t;
}

void keep_timing(const std::string& dir, const std::string& key, const KeptTiming& timing) {
    std::string partial;
    try {
        fs::create_directories(dir);
        fs::permissions(dir, fs::perms::owner_all);
        const fs::path target = timing_file(dir, key);
        partial = target.string() + ".tmp-XXXXXX";  // unique, also beside another grading writing the same
        const int fd = ::mkstemp(partial.data());
        if (fd < 0) throw std::runtime_error("cannot create a file in " + dir);
        ::close(fd);
        {
            std::ofstream out(partial);
            out << kFormat << '\n' << key << '\n' << kTimedAt << one_line(timing.timed_at) << '\n';
            for (const auto& n : timing.notes) out << kNote << one_line(n) << '\n';
            for (const auto& l : timing.lines) out << kLine << encode(l) << '\n';
            out.close();
            if (!out) throw std::runtime_error("cannot write " + partial);
        }
        fs::rename(partial, target);  // a reader sees the old file or the new one, never half of one
    } catch (const std::exception& e) {
        std::error_code ec;
        if (!partial.empty()) fs::remove(partial, ec);
        std::fprintf(stderr, "note: the timing was not kept (%s)\n", e.what());
    }
}

}  // namespace grader
