// The grader's side of the example lab's contract: the reference every variant is checked
// against, and the picture `run` writes. Linked into the grader only, never with student code.
#include "contract.hpp"

namespace negation {

void Negation::reference(View<const In> in, View<Out> out, const Params&) {
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out(x, y) = static_cast<u8>(kWhite - in(x, y));
}

// The picture is the negative itself.
labkit::GrayImage Negation::picture(View<const In>, View<const Out> out, int) {
    labkit::GrayImage img(out.width, out.height);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x) img(x, y) = out(x, y);
    return img;
}

}  // namespace negation
