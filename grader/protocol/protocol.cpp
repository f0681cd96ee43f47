#include "protocol.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "labkit/generators.hpp"

namespace protocol {

namespace fs = std::filesystem;

void write_raw_bytes(const fs::path& path, const void* data, int width, int height, std::size_t elem_size,
                     std::size_t pitch_elems) {
    std::ofstream out(path, std::ios::binary);
    RawHeader h{};
    std::memcpy(h.magic, kRawMagic, sizeof h.magic);
    h.width = static_cast<std::uint32_t>(width);
    h.height = static_cast<std::uint32_t>(height);
    h.elem_size = static_cast<std::uint32_t>(elem_size);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    const auto* bytes = static_cast<const char*>(data);
    for (int y = 0; y < height; ++y)
        out.write(bytes + static_cast<std::size_t>(y) * pitch_elems * elem_size,
                  static_cast<std::streamsize>(static_cast<std::size_t>(width) * elem_size));
    out.close();
    if (!out) throw std::runtime_error("cannot write '" + path.string() + "'");
}

RawFile::RawFile(RawFile&& other) noexcept
    : name(std::move(other.name)), width(other.width), height(other.height), elem_size(other.elem_size),
      fd_(std::exchange(other.fd_, -1)) {}

RawFile::~RawFile() {
    if (fd_ >= 0) ::close(fd_);
}

namespace {

// Reads exactly n bytes, or throws.
void read_exactly(const RawFile& f, char* data, std::size_t n) {
    while (n > 0) {
        const ssize_t got = ::read(f.fd(), data, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) throw std::runtime_error("cannot read " + f.name + (got < 0 ? ": " + std::string(std::strerror(errno)) : ": too short"));
        data += got;
        n -= static_cast<std::size_t>(got);
    }
}

}  // namespace

RawFile open_raw(const fs::path& path, std::size_t elem_size) {
    const std::string name = path.filename().string();
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT) throw std::runtime_error("no answer file " + name);
        if (errno == ELOOP) throw std::runtime_error("malformed answer " + name + ": a symbolic link, not a file");
        throw std::runtime_error("cannot open answer " + name + ": " + std::strerror(errno));
    }
    RawFile f(fd, name);
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw std::runtime_error("malformed answer " + name + ": not a regular file");
    f.elem_size = elem_size;
    RawHeader h{};
    if (static_cast<std::uintmax_t>(st.st_size) < sizeof h) throw std::runtime_error("malformed answer " + name + ": no raw-image header");
    read_exactly(f, reinterpret_cast<char*>(&h), sizeof h);
    if (std::memcmp(h.magic, kRawMagic, sizeof h.magic) != 0)
        throw std::runtime_error("malformed answer " + name + ": no raw-image header");
    if (h.elem_size != elem_size)
        throw std::runtime_error("malformed answer " + name + ": elements of " + std::to_string(h.elem_size) +
                                 " bytes, want " + std::to_string(elem_size));
    const std::uintmax_t want = sizeof h + std::uintmax_t{h.width} * h.height * elem_size;
    const auto have = static_cast<std::uintmax_t>(st.st_size);
    if (have != want)
        throw std::runtime_error("malformed answer " + name + ": " + std::to_string(have) + " bytes for a " +
                                 std::to_string(h.width) + "x" + std::to_string(h.height) + " image, want " +
                                 std::to_string(want));
    f.width = static_cast<int>(h.width);
    f.height = static_cast<int>(h.height);
    return f;
}

void read_rows(RawFile& f, void* data, std::size_t pitch_elems) {
    const std::size_t row_bytes = static_cast<std::size_t>(f.width) * f.elem_size;
    auto* bytes = static_cast<char*>(data);
    if (pitch_elems == static_cast<std::size_t>(f.width)) {  // dense: one read
        read_exactly(f, bytes, row_bytes * static_cast<std::size_t>(f.height));
    } else {
        for (int y = 0; y < f.height; ++y)
            read_exactly(f, bytes + static_cast<std::size_t>(y) * pitch_elems * f.elem_size, row_bytes);
    }
}

void write_manifest(const fs::path& path, const std::vector<ManifestEntry>& entries) {
    std::ofstream out(path);
    for (const auto& e : entries) out << e.input << '\t' << e.params << '\n';
    out.close();
    if (!out) throw std::runtime_error("cannot write '" + path.string() + "'");
}

std::vector<ManifestEntry> read_manifest(const fs::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the manifest '" + path.string() + "'");
    std::vector<ManifestEntry> entries;
    for (std::string line; std::getline(in, line);) {
        auto f = split_tabs(line);
        f.resize(2);
        entries.push_back({f[0], f[1]});
    }
    return entries;
}

std::string answer_name(std::size_t index) {
    std::string n = std::to_string(index);
    constexpr std::size_t kDigits = kAnswerDigits;
    return std::string(n.size() < kDigits ? kDigits - n.size() : 0, '0') + n + kAnswerSuffix;
}

std::vector<std::string> split_tabs(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const auto tab = s.find('\t', start);
        out.push_back(s.substr(start, tab - start));
        if (tab == std::string::npos) return out;
        start = tab + 1;
    }
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const auto comma = std::min(s.find(',', start), s.size());
        if (comma > start) out.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

std::string encode(const PerfLine& p) {
    std::string s = p.pattern;
    const auto field = [&s](const std::string& text) {
        s += '\t';
        s += text;
    };
    field(p.params);
    for (const int n : {p.width, p.height, p.threads}) field(std::to_string(n));
    for (const double ms : {p.ms, p.min_ms, p.max_ms}) field(std::to_string(ms));
    field(std::to_string(p.runs));
    for (const double ms : {p.e2e_ms, p.cpu_ms, p.late_ms, p.first_ms}) field(std::to_string(ms));
    field(std::to_string(p.noise));
    field(std::to_string(p.demand_ms));
    for (const double m : p.stage_ms) field(std::to_string(m));
    return s;
}

PerfLine decode_perf(const std::string& text) {
    const auto f = split_tabs(text);
    constexpr std::size_t kFixed = kPerfFields.size();
    if (f.size() < kFixed) throw std::invalid_argument("short perf line");
    PerfLine p;
    try {
        if (!labkit::parse_pattern(f[0])) throw std::invalid_argument("pattern");
        p.pattern = f[0];
        p.params = f[1];
        p.width = std::stoi(f[2]);
        p.height = std::stoi(f[3]);
        p.threads = std::stoi(f[4]);
        p.ms = std::stod(f[5]);
        p.min_ms = std::stod(f[6]);
        p.max_ms = std::stod(f[7]);
        p.runs = std::stoi(f[8]);
        p.e2e_ms = std::stod(f[9]);
        p.cpu_ms = std::stod(f[10]);
        p.late_ms = std::stod(f[11]);
        p.first_ms = std::stod(f[12]);
        p.noise = std::stod(f[13]);
        p.demand_ms = std::stod(f[14]);
        for (std::size_t i = kFixed; i < f.size(); ++i) p.stage_ms.push_back(std::stod(f[i]));
    } catch (const std::exception&) {
        throw std::invalid_argument("malformed perf line");
    }
    return p;
}

}  // namespace protocol
