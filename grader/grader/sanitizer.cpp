#include "sanitizer.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "sandbox.hpp"

namespace grader {
using namespace protocol;
namespace {

namespace fs = std::filesystem;

constexpr const char* kToolkitSanitizer = "/usr/local/cuda/bin/compute-sanitizer";
constexpr int kPrintLimit = 5;                  // errors reported per run: the first say what is wrong
constexpr std::size_t kLogBytesRead = 4 << 20;  // its report comes first; a runner may print far more

}  // namespace

const std::vector<std::string>& Sanitizer::tools() {
    static const std::vector<std::string> names{"memcheck", "racecheck", "synccheck", "initcheck"};
    return names;
}

Sanitizer Sanitizer::open(const std::string& tool, const std::string& path) {
    const auto& names = tools();
    if (std::find(names.begin(), names.end(), tool) == names.end())
        throw std::invalid_argument("--sanitize: '" + tool + "' is not a compute-sanitizer tool (memcheck, racecheck, "
                                    "synccheck or initcheck)");
    std::string program = path.empty() ? find_on_path("compute-sanitizer") : path;
    if (program.empty()) program = kToolkitSanitizer;
    if (::access(program.c_str(), X_OK) != 0)
        throw std::invalid_argument("--sanitize: no compute-sanitizer at " + program +
                                    " (it ships with the CUDA toolkit; --sanitizer PATH names another)");
    // Its real place: the sandbox shows the toolkit's own folder, not the links to it (Ubuntu's
    // /usr/local/cuda goes through /etc/alternatives, which the sandbox does not show).
    std::error_code ec;
    const fs::path real = fs::canonical(program, ec);
    return {ec ? fs::absolute(program).string() : real.string(), tool};
}

std::vector<std::string> Sanitizer::command() const {
    return {program, "--tool", tool, "--print-limit", std::to_string(kPrintLimit), "--error-exitcode",
            std::to_string(kSanitizerFoundExit)};
}

fs::path Sanitizer::home() const {
    // bin/compute-sanitizer of a toolkit starts the tool's own folder beside bin/: the toolkit.
    const fs::path toolkit = fs::path(program).parent_path().parent_path();
    return toolkit.has_relative_path() ? toolkit : fs::path();  // never the whole machine
}

std::vector<std::string> sanitizer_findings(const fs::path& log, std::size_t most) {
    static const std::regex problem("Error|Race reported|Invalid|Uninitialized|Barrier");
    std::ifstream in(log, std::ios::binary);
    std::vector<std::string> found;
    std::string line;
    std::size_t read = 0;
    while (found.size() < most && read < kLogBytesRead && std::getline(in, line)) {
        read += line.size() + 1;
        if (line.rfind("=========", 0) != 0 || !std::regex_search(line, problem)) continue;
        const auto start = line.find_first_not_of("= ");
        found.push_back(start == std::string::npos ? line : line.substr(start));
    }
    return found;
}

bool keep_sanitizer_report(const fs::path& log, const fs::path& to) {
    std::ifstream in(log, std::ios::binary);
    std::string text(kLogBytesRead, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    std::error_code ec;
    fs::create_directories(to.parent_path(), ec);
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    out << text;
    return static_cast<bool>(out);
}

}  // namespace grader
