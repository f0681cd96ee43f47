// CORPUS precomputes_from_cmdline_seed — the timing seed was once on the runner's command line
// ("runner time ... --seed S"), and each timed run's input came from it (seed S + 1 + run + 1).
// This reads it from /proc/self/cmdline (0, the old default, when it is not there), computes
// every timed run's output during the untimed warm-up call, and only copies one out in each
// timed call: honest work, out of the timed region. The grader must hand over each run's seed
// only when that run starts, so that the copies are of the wrong inputs (fail), or flag it.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "integral_image.hpp"
#include "labkit/generators.hpp"

namespace integral_image {
namespace {

struct Cmdline {
    bool timed = false;
    std::uint64_t seed = 0;
    int runs = 5;
};

Cmdline read_cmdline() {
    Cmdline c;
    std::ifstream in("/proc/self/cmdline");
    std::vector<std::string> args;
    for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "time") c.timed = true;
        if (args[i] == "--seed" && i + 1 < args.size()) c.seed = std::stoull(args[i + 1]);
        if (args[i] == "--runs" && i + 1 < args.size()) c.runs = std::stoi(args[i + 1]);
    }
    return c;
}

void honest(Input in, Output out, int threads) {
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

}  // namespace

void cpu_openmp(Input in, Output out, int threads) {
    static const Cmdline cmd = read_cmdline();
    if (!cmd.timed) return honest(in, out, threads);
    // One warm-up call, then cmd.runs timed calls, per measurement.
    static int call = 0;
    static std::vector<std::vector<std::uint32_t>> done;
    const int run = call++ % (cmd.runs + 1) - 1;
    if (run < 0) {  // CHEAT (deliberate): the warm-up computes every timed run's output
        done.assign(static_cast<std::size_t>(cmd.runs), {});
        for (int r = 0; r < cmd.runs; ++r) {
            const auto image = labkit::generate(labkit::Pattern::random, in.width, in.height, cmd.seed + 1 + (r + 1));
            std::vector<std::uint32_t>& table = done[static_cast<std::size_t>(r)];
            table.resize(static_cast<std::size_t>(in.width) * in.height);
            honest(image.view(), {table.data(), in.width, in.height, static_cast<std::size_t>(in.width)}, threads);
        }
        return honest(in, out, threads);
    }
    const std::vector<std::uint32_t>& table = done[static_cast<std::size_t>(run)];
    for (int y = 0; y < in.height; ++y)
        std::memcpy(out.row(y), table.data() + static_cast<std::size_t>(y) * in.width, sizeof(std::uint32_t) * in.width);
}

}  // namespace integral_image
