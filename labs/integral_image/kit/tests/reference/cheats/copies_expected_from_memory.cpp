// CHEAT, on purpose: cpu_openmp that does no work and instead searches its own process memory
// for the expected table, keyed by the first row's first prefix sums (which any correct table
// holds), and copies what follows. When the grader built the expected outputs before forking
// and ran the student in the child, this passed every case. Now the expected outputs stay in
// the grader process, and the runner never has them: it must not pass. Replaces cpu_openmp.cpp.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {
namespace {

constexpr int kKeyLength = 4;

// Reads [begin, end) of this process through /proc/self/mem, so unmapped holes cannot crash it.
bool find_table(const std::uint32_t* key, int n, const std::uint32_t* skip, std::vector<std::uint32_t>& found,
                std::size_t count) {
    const int mem = ::open("/proc/self/mem", O_RDONLY);
    std::ifstream maps("/proc/self/maps");
    std::vector<char> chunk;
    for (std::string line; std::getline(maps, line);) {
        std::istringstream fields(line);
        std::string range, perms;
        fields >> range >> perms;
        if (perms.empty() || perms[0] != 'r') continue;
        const auto dash = range.find('-');
        const std::uintptr_t begin = std::stoull(range.substr(0, dash), nullptr, 16);
        const std::uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
        chunk.resize(end - begin);
        if (::pread(mem, chunk.data(), chunk.size(), static_cast<off_t>(begin)) != static_cast<ssize_t>(chunk.size()))
            continue;
        for (std::size_t off = 0; off + n * 4 <= chunk.size(); off += 4) {
            if (std::memcmp(chunk.data() + off, key, n * 4) != 0) continue;
            const auto* where = reinterpret_cast<const std::uint32_t*>(begin + off);
            if (where == key || where == skip) continue;  // the key itself, or our own output
            if (off + count * 4 > chunk.size()) continue;
            found.assign(reinterpret_cast<const std::uint32_t*>(chunk.data() + off),
                         reinterpret_cast<const std::uint32_t*>(chunk.data() + off) + count);
            ::close(mem);
            return true;
        }
    }
    ::close(mem);
    return false;
}

}  // namespace

void cpu_openmp(Input in, Output out, int) {
    std::uint32_t key[kKeyLength];
    const int n = in.width < kKeyLength ? in.width : kKeyLength;
    std::uint32_t sum = 0;
    for (int x = 0; x < n; ++x) key[x] = sum += in(x, 0);
    std::vector<std::uint32_t> table;
    if (!find_table(key, n, out.data, table, in.pixels())) return;
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) out(x, y) = table[static_cast<std::size_t>(y) * out.width + x];
}

}  // namespace integral_image
