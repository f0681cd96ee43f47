#include "grader_exercise.hpp"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace grader {
using namespace protocol;

namespace fs = std::filesystem;

std::string file_identity(const fs::path& p) {
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) return "-";
    const auto time = fs::last_write_time(p, ec);
    if (ec) return "-";
    return std::to_string(size) + ":" + std::to_string(time.time_since_epoch().count());
}

std::string key_hash(const std::string& text) {
    constexpr std::uint64_t kOffset = 14695981039346656037ull, kPrime = 1099511628211ull;
    std::uint64_t h = kOffset;
    for (const unsigned char c : text) h = (h ^ c) * kPrime;
    char hex[2 * sizeof h + 1];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

std::vector<std::string> check_photos(const std::string& dir) {
    std::vector<std::string> left_out;
    if (dir.empty()) return left_out;
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw std::invalid_argument("--photos '" + dir + "': no such folder");
    if (!fs::is_directory(dir, ec))
        throw std::invalid_argument("--photos '" + dir + "' is a file: give the folder that holds it (the photos are its images)");
    const auto photos = labkit::images_in(dir);
    for (const auto& f : photos) {
        try {
            labkit::load_gray(f.string());
        } catch (const std::exception& e) {
            throw std::invalid_argument("--photos: " + std::string(e.what()));
        }
    }
    for (const auto& f : fs::directory_iterator(dir, ec))
        if (std::find(photos.begin(), photos.end(), f.path()) == photos.end()) left_out.push_back(f.path().filename().string());
    std::sort(left_out.begin(), left_out.end());
    return left_out;
}

CacheSlot cache_slot(std::string_view exercise, const CaseSettings& s) {
    std::string key = std::string(exercise) + " seed=" + std::to_string(s.seed) + " sizes=";
    for (const Size& size : s.sizes) key += size_name(size) + ",";
    key += " max_pixels=" + std::to_string(s.max_pixels);
    key += " photos=";
    if (!s.photos_dir.empty())
        for (const auto& f : labkit::images_in(s.photos_dir)) key += f.filename().string() + ":" + file_identity(f) + ",";
    key += " grader=" + file_identity("/proc/self/exe");
    std::replace_if(key.begin(), key.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    return {fs::path(s.cache_dir) / (std::string(exercise) + "-" + key_hash(key)), key};
}

// A staging folder this old was left by a grading that was killed (it would have been renamed
// into place or removed within a minute): nothing will ever finish it.
constexpr auto kStaleStaging = std::chrono::hours(1);

void remove_stale_staging(const fs::path& root) {
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find(".tmp-") == std::string::npos || !entry.is_directory(ec)) continue;
        const auto written = fs::last_write_time(entry.path(), ec);
        if (!ec && now - written > kStaleStaging) fs::remove_all(entry.path(), ec);
    }
}

fs::path slot_staging(const CacheSlot& slot) {
    const fs::path root = slot.dir.parent_path();
    fs::create_directories(root);
    fs::permissions(root, fs::perms::owner_all);  // expected outputs: for the instructor alone
    remove_stale_staging(root);
    std::string pattern = slot.dir.string() + ".tmp-XXXXXX";  // unique, also beside other hosts' gradings
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a folder in " + root.string());
    return pattern;
}

void publish_slot(const fs::path& staging, const CacheSlot& slot) {
    std::error_code ec;
    fs::rename(staging, slot.dir, ec);  // fails when the slot is there: another grading's, or one that could not be read
    if (!ec) return;
    const fs::path old = staging.string() + ".old";  // unique, as the staging folder is
    if (fs::rename(slot.dir, old, ec); !ec) {  // set it aside whole, then ours takes its place
        fs::rename(staging, slot.dir, ec);
        fs::remove_all(old, ec);
    }
    fs::remove_all(staging, ec);  // (nothing left when ours took the place)
}

void write_values_file(const std::string& path, const void* data, std::size_t elem_size, int width, int height,
                       const std::function<std::string(std::size_t)>& value_text) {
    std::ofstream out(path, std::ios::binary);
    if (path.size() > 4 && path.substr(path.size() - 4) == ".csv") {
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                out << value_text(static_cast<std::size_t>(y) * width + x) << (x + 1 == width ? "\n" : ",");
    } else {
        out.write(static_cast<const char*>(data), static_cast<std::streamsize>(elem_size * width * height));
    }
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace grader
