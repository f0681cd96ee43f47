// The grader's side of Lab 3's contract: the reference every variant is checked against, and the
// picture `run` writes. Linked into the grader only, never with student code.
//
// cpu-sequential: the correlation sum in double precision from the float weights, so that its own
// rounding is far below the tolerance; the border by stepping back and forth across the image
// (written apart from the header's closed form, which the kit's tests compare with it).
// Ref: Gonzalez & Woods, Digital Image Processing, 4th ed., section 3.4.
#include <cmath>

#include "contract.hpp"

namespace convolution {
namespace {

// Where position i of n pixels reads, by walking: reflect at each edge until inside.
int walk_border(int i, int n, Border border) {
    if (i >= 0 && i < n) return i;
    if (border == Border::zero) return -1;
    if (border == Border::replicate) return std::min(std::max(i, 0), n - 1);
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;  // mirror about pixel 0, or about pixel n - 1
    return i;
}

std::uint8_t to_byte(float v) { return static_cast<std::uint8_t>(std::lround(clamp_pixel(v))); }

}  // namespace

void Convolution::reference(labkit::View<const In> in, labkit::View<Out> out, const Params& p) {
    const int k = p.filter.size, r = k / 2;
    const float* weights = p.filter.weights.data();
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
            double sum = 0;
            for (int dy = -r; dy <= r; ++dy) {
                const int sy = walk_border(y + dy, in.height, p.border);
                if (sy < 0) continue;
                for (int dx = -r; dx <= r; ++dx) {
                    const int sx = walk_border(x + dx, in.width, p.border);
                    if (sx >= 0) sum += static_cast<double>(weights[(dy + r) * k + (dx + r)]) * in(sx, sy);
                }
            }
            out(x, y) = static_cast<float>(std::min<double>(std::max<double>(sum, kMinValue), kMaxValue));
        }
}

// The picture of the result: the float output rounded to 8 bits, as the PNG holds it.
labkit::GrayImage Convolution::picture(labkit::View<const In>, labkit::View<const Out> out, int) {
    labkit::GrayImage img(out.width, out.height);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) img(x, y) = to_byte(out(x, y));
    return img;
}

// A diff image is drawn over the input, where a wrong border or halo is easiest to place.
labkit::GrayImage Convolution::diff_background(labkit::View<const In> in, labkit::View<const Out>) {
    labkit::GrayImage img(in.width, in.height);
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) img(x, y) = to_byte(in(x, y));
    return img;
}

}  // namespace convolution
