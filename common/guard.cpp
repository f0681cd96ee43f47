#include "labkit/guard.hpp"

namespace labkit {

std::string guard_write_message(const std::string& what, int width, int height, std::size_t x, int y) {
    const char* where = y < 0 ? " before the first row" : y == height ? " past the last row" : " in the row padding";
    return what + " wrote outside its " + std::to_string(width) + "x" + std::to_string(height) + " buffer, at (x=" +
           std::to_string(x) + ", y=" + std::to_string(y) + ")" + where;
}

std::string find_guard_write(const unsigned char* all, std::size_t elem_size, int width, int height, std::size_t pitch,
                             int lead_rows, unsigned char byte, const std::string& what) {
    const std::size_t row_bytes = pitch * elem_size;
    for (int r = 0; r < lead_rows + height + 1; ++r) {
        const int y = r - lead_rows;  // negative: before the first row
        const bool image_row = y >= 0 && y < height;
        for (std::size_t x = image_row ? static_cast<std::size_t>(width) : 0; x < pitch; ++x) {
            const unsigned char* e = all + static_cast<std::size_t>(r) * row_bytes + x * elem_size;
            for (std::size_t b = 0; b < elem_size; ++b)
                if (e[b] != byte) return guard_write_message(what, width, height, x, y);
        }
    }
    return "";
}

}  // namespace labkit
