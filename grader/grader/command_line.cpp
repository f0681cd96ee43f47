#include "command_line.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>

#ifndef LABKIT_SOURCE_DIR
#error "meson passes LABKIT_SOURCE_DIR: the kit's source folder (the labs' Python tracks)"
#endif

namespace grader {

const CLI::Validator kPositive(
    [](std::string& text) {
        try {
            std::size_t used = 0;
            const double value = std::stod(text, &used);
            if (std::isfinite(value) && value > 0 && used == text.size()) return std::string();
        } catch (const std::exception&) {
        }
        return "must be a finite number above 0, not '" + text + "'";
    },
    "> 0", "positive");

void check_output_path(const std::string& path, const std::string& option) {
    if (path.empty()) return;
    namespace fs = std::filesystem;
    const fs::path p(path);
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (fs::is_directory(p, ec)) throw std::invalid_argument(option + " " + path + ": is a folder, not a file");
    if (!fs::is_directory(dir, ec)) throw std::invalid_argument(option + " " + path + ": no folder " + dir.string());
    if (::access(dir.c_str(), W_OK) != 0) throw std::invalid_argument(option + " " + path + ": cannot write into " + dir.string());
}

std::vector<int> to_ints(const std::vector<std::string>& items, const std::string& what) {
    std::vector<int> out;
    for (const auto& i : items) {
        std::size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(i, &used);
        } catch (const std::exception&) {
        }
        if (used != i.size() || v < 1) throw std::invalid_argument(what + ": '" + i + "' is not a positive whole number");
        out.push_back(v);
    }
    return out;
}

RunnerOptions::RunnerOptions(const LabDescription& lab) : runner{lab.default_runner, {}} {
    const std::string lab_dir = std::string(LABKIT_SOURCE_DIR) + "/labs/" + lab.name;
    runner.python.track = lab_dir + "/kit/track.py";
    runner.python.code = lab_dir + "/python";
    if (!std::filesystem::is_regular_file(runner.python.track)) runner.python.track.clear();  // a lab without a Python track
}

void RunnerOptions::add_to(CLI::App* cmd, const LabDescription& lab, const std::string& grading_group) {
    cmd->add_option("--runner", runner.program, "the runner program to drive (default: the starter's, " + lab.default_runner + ")");
    cmd->add_option("--python", runner.python.interpreter,
                    "also drive the lab's Python track (PyCUDA, CuPy, Numba) with this Python interpreter "
                    "(default: none; ./labkit passes its .venv-python)");
    cmd->add_option("--python-code", runner.python.code,
                    "the folder of the Python track's student files (default: the starter's)")
        ->capture_default_str();
    cmd->add_option("--python-track", runner.python.track, "the lab's description of its Python track")
        ->capture_default_str();
    cmd->add_flag("--python-simulate", runner.python.simulate,
                  "run the Numba variants on Numba's CUDA simulator (CPU only, very slow: tiny --sizes, "
                  "or --max-case-pixels 64)")
        ->group(grading_group);
    cmd->add_option("--sandbox", sandbox_spec,
                    "how the runner (student code) runs: 'auto' (bubblewrap from PATH), 'off', or the path of a bwrap "
                    "program; without one it still runs under the kit's limits, and reports say 'not sandboxed'")
        ->capture_default_str();
}

}  // namespace grader
