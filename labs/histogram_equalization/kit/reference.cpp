// The grader's side of Lab 2's contract: the reference every variant is checked against, and
// the histogram-and-CDF chart `run` writes beside the result. Linked into the grader only, never with student code.
//
// cpu-sequential: count, accumulate, normalize with the rounded formula in 64-bit integers, map.
// Ref: Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.3.
#include <algorithm>
#include <array>

#include "contract.hpp"

namespace histogram_equalization {

void HistogramEqualization::reference(View<const In> in, View<Out> out, const Params&) {
    std::array<std::uint64_t, kLevels> cdf{};
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) ++cdf[in(x, y)];
    for (int v = 1; v < kLevels; ++v) cdf[v] += cdf[v - 1];
    const std::uint64_t pixels = static_cast<std::uint64_t>(in.width) * in.height;
    const std::uint64_t cdf_min = *std::find_if(cdf.begin(), cdf.end(), [](std::uint64_t c) { return c != 0; });
    const std::uint64_t span = pixels - cdf_min;
    std::array<u8, kLevels> lut{};
    for (int v = 0; v < kLevels; ++v)
        lut[v] = span == 0 ? static_cast<u8>(v)  // a single-valued image is its own output
                 : cdf[v] == 0 ? 0               // values below the first non-zero bin do not occur
                               : static_cast<u8>(((cdf[v] - cdf_min) * (kLevels - 1) + span / 2) / span);
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out(x, y) = lut[in(x, y)];
}

namespace {

// The chart `run` writes: the histogram (gray bars, scaled to the tallest bin) and the CDF (a
// black line, 0 to N) of the image before equalization, then after. Equalization spreads the
// bars apart and straightens the CDF into a ramp.
constexpr int kBinWidth = 2, kChartHeight = 256, kFrame = 1, kGap = 16;
constexpr int kChartWidth = kLevels * kBinWidth;
constexpr u8 kPaper = 255, kBar = 160, kInk = 0;

void draw_chart(labkit::GrayImage& img, int left, View<const u8> image) {
    std::array<std::uint64_t, kLevels> hist{};
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) ++hist[image(x, y)];
    const std::uint64_t tallest = *std::max_element(hist.begin(), hist.end());
    const std::uint64_t pixels = static_cast<std::uint64_t>(image.width) * image.height;
    auto row_of = [](std::uint64_t value, std::uint64_t full) {  // 0 at the bottom, full at the top
        return kFrame + kChartHeight - 1 - static_cast<int>(value * (kChartHeight - 1) / full);
    };
    std::uint64_t cdf = 0;
    int last_row = row_of(0, 1);
    for (int v = 0; v < kLevels; ++v) {
        cdf += hist[v];
        const int bar_top = row_of(hist[v], tallest), cdf_row = row_of(cdf, pixels);
        for (int dx = 0; dx < kBinWidth; ++dx) {
            const int x = left + kFrame + v * kBinWidth + dx;
            for (int y = bar_top; y <= kFrame + kChartHeight - 1; ++y) img(x, y) = kBar;
            // The CDF as a connected line: a vertical stroke from the previous bin's height.
            for (int y = std::min(last_row, cdf_row); y <= std::max(last_row, cdf_row); ++y) img(x, y) = kInk;
            last_row = cdf_row;
        }
    }
    for (int x = left; x < left + kChartWidth + 2 * kFrame; ++x) img(x, 0) = img(x, kChartHeight + kFrame) = kInk;
    for (int y = 0; y < kChartHeight + 2 * kFrame; ++y) img(left, y) = img(left + kChartWidth + kFrame, y) = kInk;
}

}  // namespace

labkit::GrayImage HistogramEqualization::picture(View<const In> in, View<const Out> out, int) {
    constexpr int kPanel = kChartWidth + 2 * kFrame;
    labkit::GrayImage img(2 * kPanel + kGap, kChartHeight + 2 * kFrame, kPaper);
    draw_chart(img, 0, in);
    draw_chart(img, kPanel + kGap, out);
    return img;
}

labkit::GrayImage HistogramEqualization::diff_background(View<const In> in, View<const Out>) {
    labkit::GrayImage img(in.width, in.height);
    for (int y = 0; y < in.height; ++y) std::copy(in.row(y), in.row(y) + in.width, &img(0, y));
    return img;
}

}  // namespace histogram_equalization
