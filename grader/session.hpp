// What the grader's commands share: the runner they drive, its variant list, the device probe
// and a private working folder for the case files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "labkit/device_info.hpp"
#include "lab_main.hpp"
#include "process.hpp"

namespace grader {

struct RunnerVariant {
    std::string exercise, name, kind, summary;
    bool reference = false;  // the grader's own reference, not a runner row
};

// Asks the runner for its variants (`runner list`); adds each exercise's reference first.
// Throws std::runtime_error when the runner cannot be asked.
std::vector<RunnerVariant> list_variants(const std::string& runner, const Exercises& exercises, double timeout_s);

// Runs the device probe (a kit program, no student code) and reads what it says.
labkit::DeviceInfo probe_device(bool measure_bandwidth, double timeout_s);

// A private folder for case files and answers, removed when this goes out of scope. In shared
// memory (/dev/shm) when it has room for `bytes_needed`, else in the temporary folder.
class WorkDir {
public:
    explicit WorkDir(std::uintmax_t bytes_needed);
    ~WorkDir();
    WorkDir(const WorkDir&) = delete;
    WorkDir& operator=(const WorkDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

GraderExercise& find_exercise(const Exercises& exercises, const std::string& name);

}  // namespace grader
