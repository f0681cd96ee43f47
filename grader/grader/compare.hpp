// Element-wise comparison of an output with the reference, and the diff image that shows where
// they differ. Exact for integer outputs; float outputs pass a tolerance (absolute plus
// relative) and are also summarized by their largest error and their PSNR.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "exercise.hpp"
#include "labkit/image.hpp"

namespace protocol {

template <class T>
struct Mismatch {
    std::size_t wrong = 0;      // elements outside the tolerance
    std::size_t unwritten = 0;  // of those, elements still holding the poison (bitwise)
    int x = -1, y = -1;         // the first one in row-major order
    T got{}, want{};
    double max_error = 0;  // largest |got - want| (infinite for a NaN)
    double mse = 0;        // mean squared error over all elements (for the PSNR)
    bool ok() const { return wrong == 0; }
};

template <class T>
bool is_poison(T value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned char b : bytes)
        if (b != poison_byte<T>()) return false;
    return true;
}

template <class T>
bool within_tolerance(T got, T want, Comparison c) {
    if (c.is_exact()) return got == want;
    const double g = static_cast<double>(got), w = static_cast<double>(want);
    return std::abs(g - w) <= c.abs + c.rel * std::abs(w);  // false for a NaN
}

template <class T>
Mismatch<T> compare(labkit::View<const T> got, labkit::View<const T> want, Comparison c) {
    Mismatch<T> m;
    double squares = 0;
    for (int y = 0; y < want.height; ++y) {
        for (int x = 0; x < want.width; ++x) {
            const T g = got(x, y), w = want(x, y);
            if (!c.is_exact()) {
                const double e = std::abs(static_cast<double>(g) - static_cast<double>(w));
                const double err = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
                m.max_error = std::max(m.max_error, err);
                squares += err * err;
            }
            if (within_tolerance(g, w, c)) continue;
            if (m.wrong++ == 0) {
                m.x = x;
                m.y = y;
                m.got = g;
                m.want = w;
            }
            if (is_poison(g)) ++m.unwritten;
        }
    }
    if (want.pixels() > 0) m.mse = squares / static_cast<double>(want.pixels());
    return m;
}

// PSNR in dB against a peak value (255 for 8-bit images); infinite when identical.
double psnr_db(double mse, double peak);
std::string format_value(double v);  // integers without decimals, others with enough digits

// "first mismatch at (x=3, y=1): got 9, want 7; 12 of 35 wrong (2 never written)", and for a
// tolerance "; max error 0.5, PSNR 48.1 dB (tolerance 0.01 + 1e-05·|want|)". A float poison is a
// NaN, which arithmetic also produces from a read of poisoned memory: the words say both. An
// 8-bit poison is a value like any other (a wrong LUT writes 165 as readily as 164), so its words
// say "the poison value", not "never written": only a wider poison (four equal bytes) is one that
// a written pixel is all but never.
template <class T>
std::string describe(const Mismatch<T>& m, std::size_t pixels, Comparison c) {
    constexpr bool kFloat = std::is_floating_point_v<T>;
    constexpr bool kByte = sizeof(T) == 1;
    const std::string value = std::to_string(static_cast<unsigned>(poison_byte<T>()));
    const std::string poisoned = kFloat ? "the poison NaN (never written, or computed from a read outside the image)"
                                 : kByte ? value + ", the poison value (never written, or written as " + value + ")"
                                         : "never written";
    std::string s;
    if (!m.ok()) {
        s = "first mismatch at (x=" + std::to_string(m.x) + ", y=" + std::to_string(m.y) + "): got " +
            (is_poison(m.got) ? poisoned : format_value(static_cast<double>(m.got))) +
            ", want " + format_value(static_cast<double>(m.want)) + "; " + std::to_string(m.wrong) + " of " +
            std::to_string(pixels) + " wrong";
        if (m.unwritten > 0)
            s += " (" + std::to_string(m.unwritten) +
                 (kFloat ? " the poison NaN)" : kByte ? " hold the poison value " + value + ": never written, or written so)"
                                                      : " never written)");
    }
    if (!c.is_exact()) {
        constexpr double kPeak = 255;  // float labs work on 8-bit image values
        s += std::string(s.empty() ? "" : "; ") + "max error " + format_value(m.max_error) + ", PSNR " +
             format_value(psnr_db(m.mse, kPeak)) + " dB (tolerance " + format_value(c.abs) + " + " +
             format_value(c.rel) + "·|want|)";
    }
    return s;
}

// What a diff image shows of a case. A whole 8192^2 case is a 200 MB picture that takes seconds to
// draw and encode (into a PNG of over 100 MB), and a broken submission fails many cases; beyond
// kDiffMaxPixels an image shows the window of at most kDiffMaxSide x kDiffMaxSide around the
// first mismatch. A window at full resolution, not a downscaled overview: the bugs a diff image
// diagnoses are often one pixel wide (a last column never written, a halo one short, a section
// boundary), and an overview 8x smaller would average or skip exactly those pixels; a 1024^2
// window still spans many blocks, tiles and sections, so their pattern shows.
inline constexpr int kDiffMaxSide = 1024;
inline constexpr std::size_t kDiffMaxPixels = static_cast<std::size_t>(kDiffMaxSide) * kDiffMaxSide;

struct Window {
    int x0 = 0, y0 = 0, width = 0, height = 0;
};

// The whole width x height image when it is within kDiffMaxPixels (a 1xN strip is drawn whole),
// else the window of at most kDiffMaxSide on each side centred on (x, y), moved inside the image.
Window diff_window(int width, int height, int x, int y);

// "the 1024x1024 window at (x=3584, y=3584) of the 8192x8192 output"; "" for the whole image.
std::string describe_window(Window w, int width, int height);

// The part of an image in a window (no copy: the same rows, the same pitch).
template <class T>
labkit::View<T> crop(labkit::View<T> image, Window w) {
    return {image.row(w.y0) + w.x0, w.width, w.height, image.pitch};
}

// RGB diff image: the background (a gray picture of the case, the output's size) dimmed where
// the output is within the tolerance; red where it is not, yellow where it holds the poison
// (never written; for an 8-bit output, or written as the poison value).
// It draws the views it is given: for a large case, those of its diff_window.
void save_rgb(const std::string& path, const std::vector<std::uint8_t>& rgb, int width, int height);

template <class T>
void write_diff_png(const std::string& path, labkit::View<const std::uint8_t> background, labkit::View<const T> got,
                    labkit::View<const T> want, Comparison c) {
    constexpr int kDim = 3;  // matching pixels at a third of their brightness, so errors stand out
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(want.width) * want.height * 3);
    for (int y = 0; y < want.height; ++y)
        for (int x = 0; x < want.width; ++x) {
            std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * want.width + x) * 3];
            const bool same = within_tolerance(got(x, y), want(x, y), c);
            const bool unwritten = !same && is_poison(got(x, y));
            const std::uint8_t g = static_cast<std::uint8_t>(background(x, y) / kDim);
            p[0] = same ? g : 255;
            p[1] = same ? g : (unwritten ? 255 : 0);
            p[2] = same ? g : 0;
        }
    save_rgb(path, rgb, want.width, want.height);
}

// A gray picture of any image: values scaled linearly from [min, max] to [0, 255].
template <class T>
labkit::GrayImage normalized_gray(labkit::View<const T> image) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const double v = static_cast<double>(image(x, y));
            if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        }
    constexpr double kMaxGray = 255;
    const double scale = hi > lo ? kMaxGray / (hi - lo) : 0;
    labkit::GrayImage out(image.width, image.height);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const double v = static_cast<double>(image(x, y));
            out(x, y) = std::isfinite(v) ? static_cast<std::uint8_t>((v - lo) * scale + 0.5) : 0;
        }
    return out;
}

}  // namespace protocol
