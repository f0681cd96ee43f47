#include "pnm.hpp"

#include <cctype>
#include <fstream>
#include <iterator>
#include <vector>

#include "labkit/errors.hpp"
#include "labkit/image_io.hpp"

namespace labkit::detail {
namespace {

constexpr unsigned kMax8Bit = 255;
constexpr unsigned kMaxMaxval = 65535;  // the format's own limit

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
    throw ImageError("cannot read image '" + path + "': " + reason);
}

class Reader {
public:
    Reader(std::vector<unsigned char> bytes, std::string path) : bytes_(std::move(bytes)), path_(std::move(path)) {}

    // The next whitespace-separated number of the header (or of an ASCII body); '#' starts a
    // comment up to the end of the line.
    long long number(const char* what) {
        skip_space_and_comments();
        long long value = 0;
        std::size_t digits = 0;
        constexpr long long kTooLarge = 1LL << 40;  // far past any limit; stops an overflow
        while (pos_ < bytes_.size() && std::isdigit(bytes_[pos_])) {
            value = value * 10 + (bytes_[pos_++] - '0');
            if (value > kTooLarge) fail(path_, std::string("the ") + what + " is absurdly large");
            ++digits;
        }
        if (digits == 0) fail(path_, pos_ >= bytes_.size() ? std::string("truncated before the ") + what
                                                             : std::string("no number where the ") + what + " belongs");
        return value;
    }

    // After the header's last number, exactly one whitespace byte precedes a binary body.
    void end_of_header() {
        if (pos_ >= bytes_.size() || !std::isspace(bytes_[pos_])) fail(path_, "no whitespace after the header");
        ++pos_;
    }

    std::size_t left() const { return bytes_.size() - pos_; }
    unsigned char byte() { return bytes_[pos_++]; }

private:
    void skip_space_and_comments() {
        while (pos_ < bytes_.size()) {
            if (std::isspace(bytes_[pos_])) {
                ++pos_;
            } else if (bytes_[pos_] == '#') {
                while (pos_ < bytes_.size() && bytes_[pos_] != '\n') ++pos_;
            } else {
                break;
            }
        }
    }

    std::vector<unsigned char> bytes_;
    std::string path_;
    std::size_t pos_ = 0;
};

}  // namespace

bool looks_like_pnm(const std::string& start) {
    return start.size() >= 2 && start[0] == 'P' && start[1] >= '1' && start[1] <= '6';
}

RgbImage load_pnm(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 2) fail(path, "truncated");
    const char kind = static_cast<char>(bytes[1]);
    if (kind == '1' || kind == '4') fail(path, "PBM (1-bit) files are not supported; use PGM (P2, P5) or PPM (P3, P6)");
    const bool ascii = kind == '2' || kind == '3';
    const int channels = kind == '3' || kind == '6' ? 3 : 1;
    Reader r(std::move(bytes), path);
    r.byte();
    r.byte();
    const long long width = r.number("width"), height = r.number("height"), maxval = r.number("maximum value");
    check_image_size(width, height, "cannot read image '" + path + "'");  // before any allocation
    if (maxval < 1 || maxval > kMaxMaxval) fail(path, "maximum value " + std::to_string(maxval) + " is not 1..65535");
    const std::size_t samples = static_cast<std::size_t>(width) * height * channels;
    const int sample_bytes = maxval > kMax8Bit ? 2 : 1;
    if (!ascii) {
        r.end_of_header();
        if (r.left() < samples * sample_bytes)
            fail(path, "truncated: the header says " + std::to_string(width) + "x" + std::to_string(height) + " (" +
                           std::to_string(samples * sample_bytes) + " bytes of pixels), the file holds " +
                           std::to_string(r.left()));
    }
    auto sample = [&]() -> unsigned {
        long long v = 0;
        if (ascii) {
            v = r.number("pixel value");
        } else {
            v = r.byte();
            if (sample_bytes == 2) v = v << 8 | r.byte();  // big-endian, as the format says
        }
        if (v > maxval) fail(path, "a pixel value " + std::to_string(v) + " exceeds the maximum " + std::to_string(maxval));
        return static_cast<unsigned>((v * kMax8Bit + maxval / 2) / maxval);  // rounded to 8 bits
    };
    RgbImage image{static_cast<int>(width), static_cast<int>(height), {}, channels == 3};
    image.rgb.resize(static_cast<std::size_t>(width) * height * 3);
    for (std::size_t i = 0; i < image.rgb.size(); i += 3) {
        image.rgb[i] = static_cast<unsigned char>(sample());
        if (channels == 1) {
            image.rgb[i + 1] = image.rgb[i + 2] = image.rgb[i];
        } else {
            image.rgb[i + 1] = static_cast<unsigned char>(sample());
            image.rgb[i + 2] = static_cast<unsigned char>(sample());
        }
    }
    return image;
}

}  // namespace labkit::detail
