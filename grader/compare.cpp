#include "compare.hpp"

#include "labkit/image_io.hpp"

namespace grader {

void save_rgb(const std::string& path, const std::vector<std::uint8_t>& rgb, int width, int height) {
    labkit::save_png_rgb(path, rgb.data(), width, height);
}

}  // namespace grader
