// Loading and saving images: PNG, JPEG, BMP and TGA in through stb_image, PGM/PPM through our
// own reader (common/pnm.cpp: P2, P3, P5, P6, 8 or 16 bits); PNG out. A truncated or corrupt file
// throws ImageError, never hands back made-up pixels.
//
// Colour input is converted to 8-bit gray with the ITU-R BT.601 luma weights
// Y = 0.299 R + 0.587 G + 0.114 B, computed in integers as (77 R + 150 G + 29 B + 128) >> 8
// (the weights sum to 256, so white stays 255). An alpha channel is ignored.
// A lab whose output is a new luma (histogram equalization) puts it back into the colour photo
// through BT.601 full-range YCbCr (JPEG's): the photo's Cb and Cr are kept.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "labkit/image.hpp"

namespace labkit {

// Images larger than this are refused before decoding: 2^28 pixels (16384 x 16384) is already
// 1 GiB of uint32 output per buffer, past what a lab machine should be asked to hold.
inline constexpr long long kMaxImagePixels = 1LL << 28;
inline constexpr int kMaxImageSide = 65536;

// What load_rgb reads (by content, whatever the name), and the names a folder of images is taken
// to hold (lower case; a name's extension is compared in lower case).
inline constexpr std::string_view kImageFormats = "PNG, JPEG, PGM/PPM, BMP or TGA";
inline constexpr std::string_view kImageExtensions[] = {".png", ".jpg", ".jpeg", ".pgm", ".ppm", ".pnm", ".bmp", ".tga"};
bool named_as_image(const std::string& file_name);  // not hidden, and one of kImageExtensions
// The files of a folder named as images, sorted by name (a folder that cannot be read: none). The
// grader checks on each (--photos), and the timed `photo` pattern mirrors the first.
std::vector<std::filesystem::path> images_in(const std::filesystem::path& dir);

// 8-bit RGB, interleaved; a gray file has the same value in all three, and colour == false.
struct RgbImage {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb;
    bool colour = false;
};

// Throws ImageError naming the file and the reason (missing, empty, truncated, corrupt, too large).
RgbImage load_rgb(const std::string& path);
GrayImage load_gray(const std::string& path);  // the BT.601 luma of load_rgb
GrayImage luma_of(const RgbImage& image);

// The image with its luma replaced by `luma` (same size) and its chroma (Cb, Cr) kept.
RgbImage with_luma(const RgbImage& image, View<const std::uint8_t> luma);

// Throws ImageError when the file cannot be written.
void save_png(const std::string& path, View<const std::uint8_t> image);
void save_png_rgb(const std::string& path, const std::uint8_t* rgb, int width, int height);

// Checks a requested size against the same limits as a loaded file; throws ImageError.
void check_image_size(long long width, long long height, const std::string& what);

}  // namespace labkit
