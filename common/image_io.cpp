// stb_image is compiled here, once, for the whole kit. Only the decoders we document are enabled.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_PNM
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

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

#include "labkit/errors.hpp"

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

}  // namespace

void check_image_size(long long width, long long height, const std::string& what) {
    if (width <= 0 || height <= 0)
        throw ImageError(what + ": empty image (" + std::to_string(width) + "x" + std::to_string(height) + ")");
    if (width > kMaxImageSide || height > kMaxImageSide || width * height > kMaxImagePixels)
        throw ImageError(what + ": " + std::to_string(width) + "x" + std::to_string(height) +
                         " is too large (limit " + std::to_string(kMaxImageSide) + " per side and " +
                         std::to_string(kMaxImagePixels) + " pixels)");
}

GrayImage load_gray(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) fail(path, "no such file");
    if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) fail(path, ec.message());
    if (size == 0) fail(path, "the file is empty");

    std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) fail(path, "cannot open it for reading");

    // Read the header first, so an absurd size is refused before any decoding or allocation.
    int width = 0, height = 0, channels = 0;
    if (!stbi_info_from_file(file.get(), &width, &height, &channels))
        fail(path, std::string("not a readable PNG, JPEG, PGM/PPM, BMP or TGA (") + stbi_failure_reason() + ")");
    check_image_size(width, height, "image '" + path + "'");

    std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_file(file.get(), &width, &height, &channels, 0),
                                                     &stbi_image_free);
    if (!pixels) fail(path, std::string("corrupt or truncated (") + stbi_failure_reason() + ")");

    GrayImage gray(width, height);
    const stbi_uc* p = pixels.get();
    for (std::size_t i = 0; i < gray.pixels(); ++i, p += channels) {
        // 1 = gray, 2 = gray + alpha, 3 = RGB, 4 = RGBA; alpha is ignored.
        gray.data()[i] = channels >= 3 ? luma(p[0], p[1], p[2]) : p[0];
    }
    return gray;
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
