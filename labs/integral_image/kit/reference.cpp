// The grader's side of Lab 1's contract: the references every variant is checked against and
// the pictures `run` writes. Linked into the grader only, never with student code.
//
// cpu-sequential: the recurrence I(x,y) = i(x,y) + I(x-1,y) + I(x,y-1) - I(x-1,y-1), with I = 0
// outside the image. The arithmetic is uint32, so it wraps modulo 2^32 exactly as the contract
// says (unsigned overflow is defined in C++; signed overflow would not be); the 64-bit table's
// is uint64, exact for any image the kit takes (255 * 2^28 < 2^64); the exclusive layout is the
// same table behind a row and a column of zeros.
// Ref: Crow, "Summed-area tables for texture mapping", SIGGRAPH 1984.
#include <algorithm>

#include "contract.hpp"

namespace integral_image {

namespace {

// The recurrence into out, whose (0, 0) is the table's (0, 0); Sum wraps (uint32) or not (uint64).
template <class Sum>
void summed_area(View<const u8> in, View<Sum> out) {
    for (int y = 0; y < in.height; ++y) {
        for (int x = 0; x < in.width; ++x) {
            const Sum left = x > 0 ? out(x - 1, y) : Sum{0};
            const Sum up = y > 0 ? out(x, y - 1) : Sum{0};
            const Sum diag = x > 0 && y > 0 ? out(x - 1, y - 1) : Sum{0};
            out(x, y) = in(x, y) + left + up - diag;
        }
    }
}

// A box of side 2r + 1 (cut at the borders) summed from four corners of the table: the use the
// table exists for, O(1) a pixel whatever r. `at(x, y)` is the inclusive sum up to (x, y), 0 for
// x or y = -1. uint32 arithmetic wraps exactly like the table, so the difference is exact
// whenever the box's true sum fits in 32 bits (255 * (2r + 1)^2 < 2^32, r < 2047). Shown beside
// the input, with a gap, so the two can be compared.
template <class At>
labkit::GrayImage box_blur_picture(View<const u8> in, At at, int radius) {
    const int w = in.width, h = in.height;
    constexpr int kGap = 8;  // pixels between the two halves
    constexpr u8 kGapGray = 255;
    labkit::GrayImage img(2 * w + kGap, h, kGapGray);
    for (int y = 0; y < h; ++y) {
        const int y0 = std::max(y - radius, 0) - 1, y1 = std::min(y + radius, h - 1);
        for (int x = 0; x < w; ++x) {
            img(x, y) = in(x, y);
            const int x0 = std::max(x - radius, 0) - 1, x1 = std::min(x + radius, w - 1);
            const auto sum = at(x1, y1) - at(x0, y1) - at(x1, y0) + at(x0, y0);
            const double area = static_cast<double>(x1 - x0) * (y1 - y0);
            img(w + kGap + x, y) = static_cast<u8>(static_cast<double>(sum) / area + 0.5);
        }
    }
    return img;
}

template <class Sum>
labkit::GrayImage inclusive_picture(View<const u8> in, View<const Sum> sat, int radius) {
    return box_blur_picture(in, [&](int x, int y) -> Sum { return x < 0 || y < 0 ? Sum{0} : sat(x, y); }, radius);
}

}  // namespace

labkit::GrayImage SatCases::input_background(View<const In> in) {
    labkit::GrayImage img(in.width, in.height);
    for (int y = 0; y < in.height; ++y) std::copy(in.row(y), in.row(y) + in.width, &img(0, y));
    return img;
}

void IntegralImage::reference(View<const In> in, View<Out> out, const Params&) { summed_area(in, out); }
labkit::GrayImage IntegralImage::picture(View<const In> in, View<const Out> sat, int radius) {
    return inclusive_picture(in, sat, radius);
}

void IntegralImage64::reference(View<const In> in, View<Out> out, const Params&) { summed_area(in, out); }
labkit::GrayImage IntegralImage64::picture(View<const In> in, View<const Out> sat, int radius) {
    return inclusive_picture(in, sat, radius);
}

// The zero row and column first, then the inclusive table one row down and one column right.
void IntegralImageExclusive::reference(View<const In> in, View<Out> out, const Params&) {
    std::fill(out.row(0), out.row(0) + out.width, Out{0});
    for (int y = 1; y < out.height; ++y) out(0, y) = 0;
    summed_area(in, View<Out>{&out(1, 1), in.width, in.height, out.pitch});
}
labkit::GrayImage IntegralImageExclusive::picture(View<const In> in, View<const Out> sat, int radius) {
    return box_blur_picture(in, [&](int x, int y) -> Out { return sat(x + 1, y + 1); }, radius);
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
