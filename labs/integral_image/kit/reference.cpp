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

// A box of side 2r + 1 (cut at the borders) summed from four corners of the table: the use the
// table exists for, O(1) a pixel whatever r. uint32 arithmetic wraps exactly like the table, so
// the difference is exact whenever the box's true sum fits in 32 bits (255 * (2r + 1)^2 < 2^32,
// r < 2047). Shown beside the input, with a gap, so the two can be compared.
labkit::GrayImage IntegralImage::picture(View<const In> in, View<const Out> sat, int radius) {
    const int w = sat.width, h = sat.height;
    constexpr int kGap = 8;  // pixels between the two halves
    constexpr u8 kGapGray = 255;
    labkit::GrayImage img(2 * w + kGap, h, kGapGray);
    auto at = [&](int x, int y) -> u32 { return x < 0 || y < 0 ? 0u : sat(x, y); };
    for (int y = 0; y < h; ++y) {
        const int y0 = std::max(y - radius, 0) - 1, y1 = std::min(y + radius, h - 1);
        for (int x = 0; x < w; ++x) {
            img(x, y) = in(x, y);
            const int x0 = std::max(x - radius, 0) - 1, x1 = std::min(x + radius, w - 1);
            const u32 sum = at(x1, y1) - at(x0, y1) - at(x1, y0) + at(x0, y0);
            const double area = static_cast<double>(x1 - x0) * (y1 - y0);
            img(w + kGap + x, y) = static_cast<u8>(sum / area + 0.5);
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

labkit::GrayImage Transpose::picture(View<const In>, View<const Out> out, int) {
    constexpr u32 kMaxGray = 255;  // a transposed photo holds 8-bit values
    labkit::GrayImage img(out.width, out.height);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) img(x, y) = static_cast<u8>(std::min(out(x, y), kMaxGray));
    return img;
}

}  // namespace integral_image
