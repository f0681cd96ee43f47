// The grader's side of Lab 1's contract: the references every variant is checked against and
// the pictures `run` writes. Linked into the grader only, never with student code.
//
// cpu-sequential: the recurrence I(x,y) = i(x,y) + I(x-1,y) + I(x,y-1) - I(x-1,y-1), with I = 0
// outside the image. All arithmetic is uint32, so it wraps modulo 2^32 exactly as the contract
// says (unsigned overflow is defined in C++; signed overflow would not be).
// Ref: Crow, "Summed-area tables for texture mapping", SIGGRAPH 1984.
#include <algorithm>

#include "contract.hpp"

namespace integral_image {

void IntegralImage::reference(View<const In> in, View<Out> out, const Params&) {
    for (int y = 0; y < in.height; ++y) {
        for (int x = 0; x < in.width; ++x) {
            const u32 left = x > 0 ? out(x - 1, y) : 0u;
            const u32 up = y > 0 ? out(x, y - 1) : 0u;
            const u32 diag = x > 0 && y > 0 ? out(x - 1, y - 1) : 0u;
            out(x, y) = in(x, y) + left + up - diag;
        }
    }
}

// The table wraps modulo 2^32 on large bright images. Along a row the true table grows by a
// column sum (at most 255 * height < 2^32), so each step's increase is recovered exactly from
// the wrapped difference; the first column grows by single pixels. That gives the true 64-bit
// table, from which the picture shows the mean of the rectangle [0, x] x [0, y].
labkit::GrayImage IntegralImage::picture(View<const Out> sat) {
    const int w = sat.width, h = sat.height;
    labkit::GrayImage img(w, h);
    constexpr double kMaxGray = 255;
    std::uint64_t first_column = 0;
    for (int y = 0; y < h; ++y) {
        first_column += static_cast<u32>(sat(0, y) - (y > 0 ? sat(0, y - 1) : 0u));
        std::uint64_t value = first_column;
        for (int x = 0; x < w; ++x) {
            if (x > 0) value += static_cast<u32>(sat(x, y) - sat(x - 1, y));
            const double mean = static_cast<double>(value) / ((x + 1.0) * (y + 1.0));
            img(x, y) = static_cast<u8>(std::min(kMaxGray, mean + 0.5));
        }
    }
    return img;
}

// A diff image is easiest to read over the input itself.
labkit::GrayImage IntegralImage::diff_background(View<const In> in, View<const Out>) {
    labkit::GrayImage img(in.width, in.height);
    for (int y = 0; y < in.height; ++y) std::copy(in.row(y), in.row(y) + in.width, &img(0, y));
    return img;
}

void Transpose::reference(View<const In> in, View<Out> out, const Params&) {
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out(y, x) = in(x, y);
}

labkit::GrayImage Transpose::picture(View<const Out> out) {
    constexpr u32 kMaxGray = 255;  // a transposed photo holds 8-bit values
    labkit::GrayImage img(out.width, out.height);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) img(x, y) = static_cast<u8>(std::min(out(x, y), kMaxGray));
    return img;
}

}  // namespace integral_image
