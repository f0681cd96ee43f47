// The grader <-> runner protocol. The grader writes every case input as a raw image file and a
// manifest listing them; the runner answers each case with a raw image file in a folder the
// grader made, and reports on a pipe (key<TAB>value lines):
//   runner check EXERCISE VARIANT --manifest FILE --answers DIR --threads N [--digest N,...] [--only N,...]
//               [--schedule in-order|reversed|shuffled:SEED]   (an emulated runner only: the order of
//               a block's threads between barriers, emulate/include/cuda_runtime_api.h)
//       begin <case>          before each case: a heartbeat, and where a hang happened
//       done  <case> <guard>  the answer file is complete; guard: "" or where a write strayed
//       done  <case> <guard> <digest>   a --digest case of a GPU variant: no file, the output's
//                             digest (labkit/digest.hpp, 16 hex digits) computed on the device.
//                             The grader asks for it on large cases compared exactly, and asks
//                             again for the file of a case whose digest is wrong (--only)
//       todo  <message>       the variant is not written yet (NotImplemented)
//       skip  <message>       it cannot run here (a Python driver not installed; a GPU without what
//                             the row needs, exercise.hpp's Needs): "skipped", no failure
//       error <message>       an exception; the runner exits 3
//   runner time EXERCISE VARIANT --sizes N,... --patterns P,... --threads N,... [--runs N]
//               [--params LABEL,...] [--answers DIR]   (perf_params by label; default: all but on_request)
//       begin <what>
//       seed  <run>           a request at the start of every run (-1: the warm-up), once the run
//                             before it has ended: the grader answers on the runner's stdin with
//                             the run's input seed, drawn at random then, so that no input is known
//                             (and no output computable) before its run starts
//       keep  <pattern> <params> <width> <height>   a request after every timed run, untimed: the
//                             grader answers N (write the output to DIR/answer_name(N), then go on)
//                             or "-"; it chose at random which runs it checks (at least two of a
//                             measurement), and judges each kept output against its seed's input
//       perf  <PerfLine fields>   every timed run had a fresh input and a re-poisoned output
//   runner dry EXERCISE VARIANT [--as CC]   without a GPU: the host code run to its launches
//                             (runner.hpp); --as 86: standing for an sm_86 GPU (launch_check.cpp)
//       compiled <variant>    it ran through; todo, skip and error as for check
//       needs <params> <asked> <declared> <cc>   per set of parameters: the most dynamic shared
//                             memory per block its launches asked, its row's Needs (tests only)
//       launch <params> <kernel> <threads> <shared> <opted in>   per set of parameters and kind of
//                             launch: its kernel (the stub's offset in the runner's file), threads
//                             per block, dynamic shared memory, the kernel's opt-in (tests only)
//   runner list               one line per variant: exercise, name, cpu|gpu, summary[, "simulated": a GPU
//                             variant it runs without a GPU, on a simulator; "emulated": a GPU variant
//                             an emulated runner runs on the CPU (emulate/, grade --emulate); "peer": a
//                             library's row (the lab's peers, kit/peers.cu), graded and timed, never scored]
// The Python track's runner (pyrunner) answers the same protocol for a lab's kit/track.py.
// The runner never sees an expected output or the reference: deciding a verdict, and every
// report, happen in the grader.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "labkit/image.hpp"

namespace protocol {

// A raw image file: a fixed header, then width * height dense elements, row-major.
struct RawHeader {
    char magic[8];
    std::uint32_t width, height, elem_size, reserved;
};
inline constexpr char kRawMagic[8] = {'L', 'K', 'R', 'A', 'W', '0', '1', '\0'};

void write_raw_bytes(const std::filesystem::path& path, const void* data, int width, int height,
                     std::size_t elem_size, std::size_t pitch_elems);

// A raw image file opened for reading, its header and length checked: open_raw throws
// std::runtime_error with a message that says what is wrong (missing, short, wrong element
// size, ...). read_rows then copies its rows straight into the caller's memory (a pinned buffer,
// an image), with no copy in between: an 8192^2 answer is a quarter of a gigabyte.
// The answers come from student code, so the file is opened as hostile: never through a
// symbolic link (one to /dev/stdin would block the grader, one elsewhere would make it read a
// file of the student's choosing), never blocking, and only when it is a regular file.
class RawFile {
public:
    RawFile(int fd, std::string name) : name(std::move(name)), fd_(fd) {}
    RawFile(RawFile&& other) noexcept;
    RawFile& operator=(RawFile&&) = delete;
    RawFile(const RawFile&) = delete;
    ~RawFile();
    int fd() const { return fd_; }

    std::string name;
    int width = 0, height = 0;
    std::size_t elem_size = 0;

private:
    int fd_;
};
RawFile open_raw(const std::filesystem::path& path, std::size_t elem_size);
void read_rows(RawFile& file, void* data, std::size_t pitch_elems);

template <class T>
void write_raw(const std::filesystem::path& path, labkit::View<const T> image) {
    write_raw_bytes(path, image.data, image.width, image.height, sizeof(T), image.pitch);
}

template <class T>
labkit::HostImage<T> read_raw(const std::filesystem::path& path) {
    RawFile file = open_raw(path, sizeof(T));
    labkit::HostImage<T> image(file.width, file.height);
    read_rows(file, image.data(), static_cast<std::size_t>(file.width));
    return image;
}

// One case of a manifest: its input file and its parameters as text.
struct ManifestEntry {
    std::string input;
    std::string params;
};
void write_manifest(const std::filesystem::path& path, const std::vector<ManifestEntry>& entries);
std::vector<ManifestEntry> read_manifest(const std::filesystem::path& path);
// An answer file's name: the case's index, zero-padded to kAnswerDigits, then kAnswerSuffix.
inline constexpr int kAnswerDigits = 6;
inline constexpr char kAnswerSuffix[] = ".out";
std::string answer_name(std::size_t index);  // "000012.out"

// One timing measurement.
struct PerfLine {
    std::string pattern = "random";  // the shared pattern of the timed image (labkit::kPatterns)
    std::string params;              // the label of the timed parameters ("" for a lab without)
    int width = 0, height = 0;
    int threads = 0;  // CPU variants; 0 for GPU
    double ms = 0, min_ms = 0, max_ms = 0;  // kernels only for GPU (CUDA events), the whole call for CPU
    int runs = 0;
    double e2e_ms = 0;               // GPU: copy in + kernels + copy out; CPU: same as ms
    double cpu_ms = 0;               // CPU: CPU time (user + system, all threads) of a median call, at the
                                     // timed calls' CPU time over their wall time, summed; 0 for GPU
    double late_ms = 0;              // GPU: median wait for device work still running after a run's stop event
    double first_ms = 0;             // GPU: wall time of the runner process's first call of the variant (module
                                     // load; for the Python track also compiling and JIT), the same on every line
    double noise = 0;                // CPU: the timed calls' interquartile range over their median (labkit::Stats)
    double demand_ms = 0;            // CPU: time the threads ran or waited for a core (ThreadDemand) over the
                                     // wall time of the timed runs, times the median; 0 for GPU or unknown
    std::vector<double> stage_ms;    // medians per stage, when the pipeline marks stages
};
// A perf line's fields, tab-separated, in this order (PerfLine's members of the same names), then
// one per stage: encode writes them, decode_perf reads them, and the Python track's runner writes
// them by these names (labkit-facts exports the list).
inline constexpr std::array<std::string_view, 15> kPerfFields = {
    "pattern", "params", "width", "height", "threads", "ms", "min_ms", "max_ms", "runs",
    "e2e_ms", "cpu_ms", "late_ms", "first_ms", "noise", "demand_ms"};
std::string encode(const PerfLine& p);
PerfLine decode_perf(const std::string& text);  // throws std::invalid_argument

// "a,,b," -> {"a","b"}: empty items are dropped
std::vector<std::string> split_commas(const std::string& s);
// {"a","b"} -> "a,b" (its inverse); any container of strings or of numbers
template <class Items>
std::string join_commas(const Items& items) {
    std::string s;
    for (const auto& i : items) {
        if (!s.empty()) s += ",";
        if constexpr (std::is_arithmetic_v<std::decay_t<decltype(i)>>)
            s += std::to_string(i);
        else
            s += i;
    }
    return s;
}

// "a\tb\t\tc" -> {"a","b","","c"}
std::vector<std::string> split_tabs(const std::string& s);

}  // namespace protocol
