// Our own reader of PGM and PPM files (binary P5/P6 and ASCII P2/P3, 8 or 16 bits), because
// stb's accepts a truncated file and hands back uninitialised memory for the missing pixels,
// and overflows on a huge width in the header. This one checks the header before allocating
// and refuses a body shorter than the header promises. Internal to common/image_io.cpp.
#pragma once

#include <string>

#include "labkit/image_io.hpp"

namespace labkit::detail {

// True when the file starts like a PNM file ('P' and a digit 1-6).
bool looks_like_pnm(const std::string& bytes_at_start);

// Reads a PGM or PPM file as 8-bit RGB (a PGM's gray in all three). Throws ImageError naming the
// file and what is wrong with it.
RgbImage load_pnm(const std::string& path);

}  // namespace labkit::detail
