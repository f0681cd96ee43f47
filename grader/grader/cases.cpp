#include "cases.hpp"

#include <stdexcept>

#include "labkit/image_io.hpp"

namespace protocol {

std::vector<Size> quick_sizes() { return {kQuickSizes.begin(), kQuickSizes.end()}; }

std::vector<Size> default_sizes() {
    auto sizes = quick_sizes();
    sizes.insert(sizes.end(), kLargeSizes.begin(), kLargeSizes.end());
    return sizes;
}

std::vector<Size> parse_sizes(const std::string& text) {
    std::vector<Size> sizes;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        start = comma + 1;
        if (item.empty()) continue;
        if (item == "quick" || item == "default") {
            const auto named = item == "quick" ? quick_sizes() : default_sizes();
            sizes.insert(sizes.end(), named.begin(), named.end());
            continue;
        }
        const auto x = item.find('x');
        std::size_t used_w = 0, used_h = 0;
        int w = 0, h = 0;
        try {
            w = std::stoi(item.substr(0, x), &used_w);
            h = x == std::string::npos ? w : std::stoi(item.substr(x + 1), &used_h);
        } catch (const std::exception&) {
            throw std::invalid_argument("bad size '" + item + "': expected N or WxH");
        }
        const bool whole = used_w == (x == std::string::npos ? item.size() : x) &&
                           (x == std::string::npos || used_h == item.size() - x - 1);
        if (!whole || w < 1 || h < 1) throw std::invalid_argument("bad size '" + item + "': expected N or WxH, N >= 1");
        try {
            labkit::check_image_size(w, h, "size " + item);
        } catch (const std::exception& e) {
            throw std::invalid_argument(e.what());
        }
        sizes.push_back({w, h});
    }
    if (sizes.empty()) throw std::invalid_argument("no sizes in '" + text + "'");
    return sizes;
}

std::string size_name(Size s) { return std::to_string(s.first) + "x" + std::to_string(s.second); }

}  // namespace protocol
