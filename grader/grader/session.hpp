// What the grader's commands share: the runner they drive, its variant list, the device probe
// and a private working folder for the case files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "labkit/device_info.hpp"
#include "lab_description.hpp"
#include "process.hpp"
#include "sanitizer.hpp"

namespace grader {

// This side is built on what both sides share (grader/protocol/), named unqualified here.
using namespace protocol;

struct RunnerVariant {
    std::string exercise, name, kind, summary;
    bool reference = false;  // the grader's own reference, not a runner row
    std::size_t program = 0;  // which of the Runner's programs answers for it
    bool simulated = false;   // a GPU variant its runner runs without a GPU (Numba's CUDA simulator)
    bool emulated = false;    // a GPU variant its runner runs on the CPU (an emulated runner: grade --emulate)
    bool peer = false;        // a library's row (the lab's peers), not the kit's or the student's code
};

// The Python track (pyrunner): a second program that answers the same protocol for the
// variants of a lab's kit/track.py, from a code base's Python files.
struct PythonTrack {
    std::string interpreter;  // empty: no Python track
    std::string track;        // the lab's kit/track.py; a lab without one has no Python track
    std::string code;         // the code base's Python files
    bool simulate = false;    // Numba's variants on its CUDA simulator (checks without a GPU)
    std::string contract;     // the grader's `contract` JSON: the pixel types and output sizes it reads
    bool enabled() const { return !interpreter.empty() && !track.empty(); }
};

// What answers for a code base: its native runner program, and its Python track.
struct RunnerSpec {
    std::string program;
    PythonTrack python;
};

// Bytes of the largest answer file of an image of `pixels` pixels (any element type of the kit).
std::uintmax_t answer_bytes(std::uintmax_t pixels);

// One call of the runner: its arguments and what the kit allows it.
struct RunnerCall {
    std::vector<std::string> args;     // after the program: "check", exercise, variant, ...
    std::string log;                   // its stdout and stderr; empty: discarded
    std::filesystem::path answers;     // its one writable folder; empty: none
    bool gpu = false;                  // it may use the GPU
    double wall_s = 0;                 // its wall-clock limit; 0: none
    std::uintmax_t largest_file = 0;   // bytes of the largest answer it writes
    bool sanitized = false;            // under the Runner's sanitizer, when it has one
    std::size_t program = 0;           // RunnerVariant::program
    const Replies* replies = nullptr;  // its stdin, for the answers to its requests; nullptr: /dev/null
    const SilenceLimit* silence = nullptr;  // changed by its line handler; nullptr: the Runner's silence_s()
};

// The runner programs of one grading run (student code): the native runner, and the Python
// track's when there is one. Each is copied into the working folder, so that the sandbox user
// can read it wherever the build lies, and always called in the sandbox with the kit's limits.
class Runner {
public:
    // sanitizer: put in front of the runner in the calls that ask for it (RunnerCall::sanitized).
    Runner(const RunnerSpec& spec, const Sandbox& sandbox, const std::filesystem::path& work, double silence_s,
           const Sanitizer* sanitizer = nullptr);
    ChildOutcome call(const RunnerCall& c, const LineHandler& on_line = {}) const;
    const Sandbox& sandbox() const { return sandbox_; }
    double silence_s() const { return silence_s_; }

    std::size_t programs() const { return programs_.size(); }
    const std::filesystem::path& work() const { return work_; }

private:
    struct Program {
        std::vector<std::string> argv;                 // the command, before "list", "check", ...
        std::vector<std::filesystem::path> read_only;  // what it must see besides the working folder
    };
    Program python_program(const PythonTrack& python) const;

    std::vector<Program> programs_;
    std::filesystem::path work_;
    const Sandbox& sandbox_;
    double silence_s_;
    const Sanitizer* sanitizer_;
};

// Asks the runner for its variants (`runner list`); adds each exercise's reference first.
// Throws std::runtime_error when the native runner cannot be asked, or lists more than a kit
// could; a Python track that cannot be asked is left out, with a warning.
std::vector<RunnerVariant> list_variants(const Runner& runner, const Exercises& exercises);

// Runs the device probe (a kit program, no student code) and reads what it says.
labkit::DeviceInfo probe_device(bool measure_bandwidth, double timeout_s);

// A private folder for case files and answers, removed when this goes out of scope. In shared
// memory (/dev/shm) when it has room for `bytes_needed`, else in the temporary folder. Others
// may pass through it (not list it), so that a sandbox user reads the files it is given.
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
