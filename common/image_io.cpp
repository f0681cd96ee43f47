// stb_image is compiled here, once, for the whole kit. Only the decoders we document are enabled.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_FAILURE_USERMSG
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#endif
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "labkit/image_io.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <system_error>
#include <vector>

#include "labkit/errors.hpp"
#include "pnm.hpp"

namespace labkit {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
    throw ImageError("cannot read image '" + path + "': " + reason);
}

// BT.601 luma in 8.8 fixed point; the weights sum to 256 so 255-gray stays 255.
constexpr unsigned kLumaR = 77, kLumaG = 150, kLumaB = 29, kLumaShift = 8;
static_assert(kLumaR + kLumaG + kLumaB == 1u << kLumaShift, "luma weights must sum to one");

std::uint8_t luma(unsigned r, unsigned g, unsigned b) {
    return static_cast<std::uint8_t>((kLumaR * r + kLumaG * g + kLumaB * b + (1u << (kLumaShift - 1))) >> kLumaShift);
}

std::vector<unsigned char> read_start(const std::string& path, std::size_t n) {
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> bytes(n);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(n));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
}

bool is_png(const std::vector<unsigned char>& b) { return b.size() >= 4 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G'; }
bool is_jpeg(const std::vector<unsigned char>& b) { return b.size() >= 2 && b[0] == 0xFF && b[1] == 0xD8; }
bool is_bmp(const std::vector<unsigned char>& b) { return b.size() >= 2 && b[0] == 'B' && b[1] == 'M'; }

// stb's TGA reader fills a truncated file's missing pixels with zeros: walk the pixel data
// (raw, or run-length packets) and say whether the file holds all of it.
bool tga_truncated(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<unsigned char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    constexpr std::size_t kHeader = 18;
    if (b.size() < kHeader) return true;
    const std::size_t id_length = b[0], map_length = b[5] | b[6] << 8, map_bits = b[7];
    const int type = b[2];
    const std::size_t width = b[12] | b[13] << 8, height = b[14] | b[15] << 8, pixel_bytes = (b[16] + 7) / 8;
    std::size_t pos = kHeader + id_length + (b[1] ? map_length * ((map_bits + 7) / 8) : 0);
    const std::size_t pixels = width * height;
    constexpr int kRunLengthTypes = 8;  // types 9, 10, 11 are 1, 2, 3 run-length encoded
    if (type < kRunLengthTypes) return b.size() < pos + pixels * pixel_bytes;
    constexpr unsigned kRunBit = 0x80, kCountMask = 0x7F;
    for (std::size_t done = 0; done < pixels;) {
        if (pos >= b.size()) return true;
        const unsigned packet = b[pos++];
        const std::size_t count = (packet & kCountMask) + 1;
        pos += (packet & kRunBit) ? pixel_bytes : count * pixel_bytes;
        done += count;
    }
    return pos > b.size();
}

}  // namespace

void check_image_size(long long width, long long height, const std::string& what) {
    if (width <= 0 || height <= 0)
        throw ImageError(what + ": empty image (" + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (width > kMaxImageSide || height > kMaxImageSide || width * height > kMaxImagePixels)
        throw ImageError(what + ": " + std::to_string(width) + "x" + std::to_string(height) +
                         " is too large (limit " + std::to_string(kMaxImageSide) + " per side and " +
                         std::to_string(kMaxImagePixels) + " pixels)");
}

bool named_as_image(const std::string& file_name) {
    if (file_name.empty() || file_name.front() == '.') return false;  // hidden: .DS_Store and the like
    std::string ext = std::filesystem::path(file_name).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return std::find(std::begin(kImageExtensions), std::end(kImageExtensions), ext) != std::end(kImageExtensions);
}

std::vector<std::filesystem::path> images_in(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> images;
    std::error_code ec;
    for (const auto& f : std::filesystem::directory_iterator(dir, ec))
        if (named_as_image(f.path().filename().string()) && !f.is_directory(ec)) images.push_back(f.path());
    std::sort(images.begin(), images.end());
    return images;
}

RgbImage load_rgb(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) fail(path, "no such file");
    if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) fail(path, ec.message());
    if (size == 0) fail(path, "the file is empty");

    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) fail(path, "cannot open it for reading");
    const auto start = read_start(path, 4);
    if (detail::looks_like_pnm(std::string(start.begin(), start.end()))) return detail::load_pnm(path);

    // Read the header first, so an absurd size is refused before any decoding or allocation.
    stbi__g_failure_reason = nullptr;  // stb keeps the last failure's reason: never report a stale one
    int width = 0, height = 0, channels = 0;
    if (!stbi_info_from_file(file.get(), &width, &height, &channels))
        fail(path, "not a readable " + std::string(kImageFormats) + " (" +
                       (stbi_failure_reason() ? stbi_failure_reason() : "unknown format") + ")");
    if (is_bmp(start)) height = std::abs(height);  // a negative height is a valid top-down BMP
    check_image_size(width, height, "cannot read image '" + path + "'");
    // stb decodes into one buffer whose size must fit in an int: say so, instead of its reason.
    const long long sample_bytes = stbi_is_16_bit_from_file(file.get()) ? 2 : 1;
    const long long decoded = static_cast<long long>(width) * height * channels * sample_bytes;
    if (decoded > INT_MAX)
        fail(path, std::to_string(width) + "x" + std::to_string(height) + " with " + std::to_string(channels) +
                       " channels of " + std::to_string(8 * sample_bytes) + " bits decodes to " + std::to_string(decoded) +
                       " bytes, more than the 2 GiB the decoder handles; save it as 8-bit gray");
    if (!is_png(start) && !is_jpeg(start) && !is_bmp(start) && tga_truncated(path))
        fail(path, "truncated: the TGA file holds fewer pixels than its header says");

    stbi__g_failure_reason = nullptr;
    std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_file(file.get(), &width, &height, &channels, 0),
                                                     &stbi_image_free);
    if (!pixels)
        fail(path, std::string("corrupt or truncated (") +
                       (stbi_failure_reason() ? stbi_failure_reason() : "the decoder gave no reason") + ")");

    constexpr int kRgb = 3;  // stb's channels: 1 = gray, 2 = gray + alpha, 3 = RGB, 4 = RGBA; alpha is ignored
    RgbImage image{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * kRgb), channels >= kRgb};
    const stbi_uc* p = pixels.get();
    for (std::size_t i = 0; i < image.rgb.size(); i += kRgb, p += channels)
        for (int c = 0; c < kRgb; ++c) image.rgb[i + c] = p[image.colour ? c : 0];
    return image;
}

GrayImage luma_of(const RgbImage& image) {
    GrayImage gray(image.width, image.height);
    for (std::size_t i = 0; i < gray.pixels(); ++i) {
        const std::uint8_t* p = &image.rgb[3 * i];
        gray.data()[i] = luma(p[0], p[1], p[2]);
    }
    return gray;
}

GrayImage load_gray(const std::string& path) { return luma_of(load_rgb(path)); }

RgbImage with_luma(const RgbImage& image, View<const std::uint8_t> new_luma) {
    if (new_luma.width != image.width || new_luma.height != image.height)
        throw ImageError("with_luma: the luma is " + std::to_string(new_luma.width) + "x" + std::to_string(new_luma.height) +
                         ", the image " + std::to_string(image.width) + "x" + std::to_string(image.height));
    // BT.601 full range (JFIF): Cb = 0.564 (B - Y), Cr = 0.713 (R - Y); the inverse below.
    constexpr double kCb = 0.5 / (1 - 0.114), kCr = 0.5 / (1 - 0.299);
    constexpr double kRfromCr = 1.402, kGfromCb = 0.344136, kGfromCr = 0.714136, kBfromCb = 1.772;
    auto clamp8 = [](double v) { return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L)); };
    RgbImage out = image;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            std::uint8_t* p = &out.rgb[3 * (static_cast<std::size_t>(y) * image.width + x)];
            const double old_y = luma(p[0], p[1], p[2]);
            const double cb = kCb * (p[2] - old_y), cr = kCr * (p[0] - old_y);
            const double y_new = new_luma(x, y);
            p[0] = clamp8(y_new + kRfromCr * cr);
            p[1] = clamp8(y_new - kGfromCb * cb - kGfromCr * cr);
            p[2] = clamp8(y_new + kBfromCb * cb);
        }
    return out;
}

void save_png(const std::string& path, View<const std::uint8_t> image) {
    const int stride_bytes = static_cast<int>(image.pitch);
    if (!stbi_write_png(path.c_str(), image.width, image.height, 1, image.data, stride_bytes))
        throw ImageError("cannot write PNG '" + path + "' (does the folder exist and is it writable?)");
}

void save_png_rgb(const std::string& path, const std::uint8_t* rgb, int width, int height) {
    if (!stbi_write_png(path.c_str(), width, height, 3, rgb, width * 3))
        throw ImageError("cannot write PNG '" + path + "' (does the folder exist and is it writable?)");
}

}  // namespace labkit
