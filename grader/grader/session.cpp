#include "session.hpp"

#include "cgroup.hpp"
#include "kit_facts.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>

#ifndef LABKIT_PROBE_PATH
#error "meson passes LABKIT_PROBE_PATH: the device probe program"
#endif
#if !defined(LABKIT_PYRUNNER_DIR) || !defined(LABKIT_INPUTS_LIB)
#error "meson passes LABKIT_PYRUNNER_DIR (pyrunner/labkit_py) and LABKIT_INPUTS_LIB (the timing images)"
#endif

namespace grader {
using namespace protocol;

namespace fs = std::filesystem;

GraderExercise& find_exercise(const Exercises& exercises, const std::string& name) {
    for (const auto& e : exercises)
        if (e->info().name == name) return *e;
    throw std::runtime_error("the runner names an exercise this lab does not have: '" + name + "'");
}

namespace {

// The kit's limits on every runner call (grader/grader/sandbox.hpp says how they are applied).
// The runner, OpenMP and CUDA threads, with room to spare; Numba's CUDA simulator runs every thread
// of a block (up to 1024) as a thread of its own.
constexpr unsigned kMinProcesses = 1280;
constexpr unsigned kProcessesPerCore = 4;       // a thread sweep goes up to one thread per core
constexpr std::uintmax_t kCpuMemoryBytes = 16ull << 30;  // address space: 8192^2 cases need < 2 GiB
constexpr std::uintmax_t kGpuDataBytes = 32ull << 30;    // data segment: CUDA reserves address space far beyond
// Memory the whole sandbox may hold, all its processes and tmpfs files together (its control
// group): 3x what an 8192^2 case needs, and less than three children of 2.5 GiB each.
constexpr std::uintmax_t kSandboxMemoryBytes = 6ull << 30;
constexpr std::uintmax_t kMinFileBytes = 64ull << 20;    // the largest file, when answers are small
constexpr std::uintmax_t kAnswersInFlight = 4;  // answers the folder may hold before the grader takes them
constexpr std::size_t kMaxVariants = 1000;      // a kit's tables hold tens; more is not a kit runner

}  // namespace

std::uintmax_t answer_bytes(std::uintmax_t pixels) {
    constexpr std::uintmax_t kBytesPerPixelBound = 16, kHeaderBound = 4096;  // 8-byte elements, and room
    return pixels * kBytesPerPixelBound + kHeaderBound;
}

namespace {

constexpr auto kReadable = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec;

// A copy the sandbox user can read, whoever owns the source.
void copy_readable(const fs::path& from, const fs::path& to) {
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    fs::permissions(to, kReadable);
}

// A file of `text` the sandbox user can read.
void write_readable(const fs::path& to, const std::string& text) {
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + to.string());
    out.close();
    fs::permissions(to, kReadable);
}

void make_readable_dir(const fs::path& dir) {
    fs::create_directories(dir);
    fs::permissions(dir, kReadable);
}

// The Python track's files of one suffix in `from` (not its subfolders), copied into `to`.
void copy_files(const fs::path& from, const fs::path& to, const std::vector<std::string>& suffixes) {
    make_readable_dir(to);
    std::error_code ec;  // a folder that is not there has no files
    for (const auto& entry : fs::directory_iterator(from, ec))
        if (entry.is_regular_file() && std::ranges::find(suffixes, entry.path().extension().string()) != suffixes.end())
            copy_readable(entry.path(), to / entry.path().filename());
}

// Where an interpreter's installation lies: the folder above its bin/, for the path as given
// and for the program it links to (a virtual environment's python is a link to its base).
std::vector<fs::path> interpreter_prefixes(const fs::path& interpreter) {
    std::vector<fs::path> prefixes;
    std::error_code ec;
    for (const fs::path& p : {fs::absolute(interpreter, ec), fs::canonical(interpreter, ec)}) {
        const fs::path prefix = p.parent_path().parent_path();
        const auto top = prefix.begin() == prefix.end() ? fs::path() : *std::next(prefix.begin());
        if (prefix.empty() || prefix == "/" || top == "usr") continue;  // /usr is in every sandbox
        if (std::ranges::find(prefixes, prefix) == prefixes.end()) prefixes.push_back(prefix);
    }
    return prefixes;
}

// Python's -c program: the runner's package from the working folder, nothing from the
// environment (-I), no bytecode written (-B: the folder is read-only in the sandbox).
std::string python_launcher(const fs::path& root) {
    return "import sys; sys.path.insert(0, '" + root.string() +
           "'); from labkit_py.__main__ import main; sys.exit(main())";
}

}  // namespace

Runner::Runner(const RunnerSpec& spec, const Sandbox& sandbox, const fs::path& work, double silence_s,
               const Sanitizer* sanitizer)
    : work_(work), sandbox_(sandbox), silence_s_(silence_s), sanitizer_(sanitizer) {
    if (::access(spec.program.c_str(), X_OK) != 0)
        throw std::runtime_error("no runner program at '" + spec.program + "' (build it first: ./labkit build)");
    copy_readable(spec.program, work / "runner");
    programs_.push_back({{(work / "runner").string()}, {}});
    if (spec.python.enabled()) programs_.push_back(python_program(spec.python));
}

Runner::Program Runner::python_program(const PythonTrack& python) const {
    const fs::path root = work_ / "python";
    std::string interpreter = python.interpreter;
    // A path as given (not resolved: a virtual environment's python finds its packages through
    // the path it was started by), made absolute, since the sandbox starts elsewhere.
    interpreter = interpreter.find('/') == std::string::npos ? find_on_path(interpreter) : fs::absolute(interpreter).string();
    if (interpreter.empty() || ::access(interpreter.c_str(), X_OK) != 0)
        throw std::runtime_error("--python " + python.interpreter + ": no such program");
    if (!fs::is_regular_file(python.track)) throw std::runtime_error("--python-track " + python.track + ": no such file");
    make_readable_dir(root);
    make_readable_dir(root / "code");  // a code base without Python files: every Python variant is TODO
    copy_files(LABKIT_PYRUNNER_DIR, root / "labkit_py", {".py"});
    copy_files(fs::path(LABKIT_PYRUNNER_DIR) / "drivers", root / "labkit_py" / "drivers", {".py"});
    copy_files(python.code, root / "code", {".py", ".cu"});
    copy_readable(python.track, root / "track.py");
    write_readable(root / "contract.json", python.contract);
    write_readable(root / "protocol.json", protocol_facts().dump());  // labkit_py/protocol.py reads it
    copy_readable(LABKIT_INPUTS_LIB, root / "liblabkit_inputs.so");
    Program p{{interpreter, "-I", "-B", "-c", python_launcher(root), "--track", (root / "track.py").string(), "--code",
               (root / "code").string(), "--inputs-lib", (root / "liblabkit_inputs.so").string(),
               "--contract", (root / "contract.json").string()},
              interpreter_prefixes(interpreter)};
    if (python.simulate) p.argv.push_back("--simulate");
    return p;
}

ChildOutcome Runner::call(const RunnerCall& c, const LineHandler& on_line) const {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    SpawnOptions o;
    o.silence_timeout_s = silence_s_;
    o.silence_limit = c.silence;
    o.log_path = c.log;
    o.wall_limit_s = c.wall_s;
    o.sandbox = &sandbox_;
    o.replies = c.replies;
    const Program& program = programs_.at(c.program);
    o.confinement.read_only = {work_};
    o.confinement.read_only.insert(o.confinement.read_only.end(), program.read_only.begin(), program.read_only.end());
    o.confinement.writable = c.answers;
    o.confinement.gpu = c.gpu;
    o.confinement.memory_bytes = c.gpu ? kGpuDataBytes : kCpuMemoryBytes;
    o.confinement.group_memory_bytes = kSandboxMemoryBytes;
    o.confinement.file_bytes = std::max(kMinFileBytes, c.largest_file);
    o.confinement.processes = std::max(kMinProcesses, kProcessesPerCore * cores);
    o.confinement.cpu_s = c.wall_s * cores;
    if (!c.answers.empty()) {
        sandbox_.hand_over(c.answers);
        o.watched = c.answers;
        o.watched_bytes = kAnswersInFlight * o.confinement.file_bytes;
    }
    std::vector<std::string> argv;
    if (c.sanitized && sanitizer_) {
        argv = sanitizer_->command();
        if (const auto home = sanitizer_->home(); !home.empty()) o.confinement.read_only.push_back(home);
    }
    argv.insert(argv.end(), program.argv.begin(), program.argv.end());
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    return spawn(argv, o, on_line);
}

std::vector<RunnerVariant> list_variants(const Runner& runner, const Exercises& exercises) {
    std::vector<RunnerVariant> listed;  // every program's rows, in program order
    for (std::size_t program = 0; program < runner.programs(); ++program) {
        std::size_t count = 0;
        RunnerCall list;
        list.args = {"list", "--report-fd", std::to_string(kReportFd)};
        list.program = program;
        list.log = (runner.work() / ("list-" + std::to_string(program) + ".log")).string();
        const auto out = runner.call(list, [&](const std::string& key, const std::string&) {
            return key == "variant" && ++count <= kMaxVariants;
        });
        if (count > kMaxVariants)
            throw std::runtime_error("the runner lists " + std::to_string(count) + " variants (a kit's tables hold at most " +
                                     std::to_string(kMaxVariants) + "): not a kit runner");
        if (out.end != ChildOutcome::End::exited || out.exit_code != 0) {
            if (program == 0) throw std::runtime_error("'runner list' failed: " + out.describe());
            const auto tail = log_tail(list.log, 2);
            std::fprintf(stderr, "warning: the Python track is left out: its runner failed to list its variants (%s%s%s)\n",
                         out.describe().c_str(), tail.empty() ? "" : ": ", tail.c_str());
            continue;
        }
        for (const auto& [key, value] : out.lines) {
            if (key != "variant") continue;
            auto f = split_tabs(value);
            f.resize(5);
            find_exercise(exercises, f[0]);  // an unknown exercise is an error, not a row
            for (const auto& v : listed)
                if (v.name == f[1]) throw std::runtime_error("two runners list a variant '" + f[1] + "'");
            listed.push_back({f[0], f[1], f[2], f[3], false, program, f[4] == "simulated", f[4] == "emulated",
                              f[4] == "peer"});
        }
    }
    std::vector<RunnerVariant> variants;
    for (const auto& e : exercises) {
        const auto info = e->info();
        variants.push_back({info.name, info.reference_name, "cpu", "the reference (the grader's own)", true});
        for (const auto& v : listed)
            if (v.exercise == info.name) variants.push_back(v);
    }
    return variants;
}

labkit::DeviceInfo probe_device(bool measure_bandwidth, double timeout_s) {
    std::vector<std::string> argv{LABKIT_PROBE_PATH};
    if (measure_bandwidth) argv.push_back("--bandwidth");
    SpawnOptions o;
    o.silence_timeout_s = timeout_s;
    const auto probe = spawn(argv, o);
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
    // A grader killed outright (SIGKILL, a Slurm time limit) leaves its folder behind: gigabytes
    // of memory in /dev/shm. The folder is named after its grader, and the next one removes it.
    const std::string prefix = "labkit-work-";
    for (const fs::path& dir : {shm, fs::temp_directory_path()}) remove_leftovers_of_dead(dir, prefix, false);
    fs::path base = has_room(shm, bytes_needed) ? shm : fs::temp_directory_path();
    std::string pattern = (base / (prefix + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a working folder in " + base.string());
    path_ = pattern;
    fs::permissions(path_, fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
}

WorkDir::~WorkDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

}  // namespace grader
