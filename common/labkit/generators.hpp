// Deterministic test images. The same (pattern, size, seed) gives the same pixels on every
// machine: the generator is a fixed 64-bit mixer, not std::mt19937 + a distribution (whose
// output the standard leaves to the library).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "labkit/image.hpp"

namespace labkit {

enum class Pattern { random, zeros, full, gradient, checkerboard, low_contrast, skewed, photo };

struct PatternInfo {
    Pattern pattern;
    std::string_view name;
    std::string_view description;
};

inline constexpr PatternInfo kPatterns[] = {
    {Pattern::random, "random", "uniform 0..255 from the seed"},
    {Pattern::zeros, "zeros", "every pixel 0"},
    {Pattern::full, "full", "every pixel 255 (the largest sums)"},
    {Pattern::gradient, "gradient", "diagonal ramp 0..255"},
    {Pattern::checkerboard, "checkerboard", "8x8 squares of 0 and 255"},
    {Pattern::low_contrast, "low-contrast", "random values squeezed into 100..139"},
    {Pattern::skewed, "skewed", "90% of the pixels 255, the rest uniform (a mostly white page)"},
    {Pattern::photo, "photo", "a real photo (gray), mirrored to fill the size, shifted by the seed"},
};

std::optional<Pattern> parse_pattern(std::string_view name);
std::string_view pattern_name(Pattern p);

GrayImage generate(Pattern pattern, int width, int height, std::uint64_t seed);

// The photo that Pattern::photo draws from: set once, before any image is drawn, by each process
// that draws one (the grader from its --photos, the runner from the copy the grader hands it), so
// that both draw the same pixels. generate(Pattern::photo, ...) without one throws
// std::invalid_argument. The photo is mirrored at its edges (no seams: a real image's local
// statistics, which a histogram's atomics see, at any size) and shifted by the seed (every timed
// run's image differs, as with the drawn patterns).
void use_photo(GrayImage photo);
const GrayImage* photo_in_use();  // nullptr: none

// splitmix64: a tiny, well-mixed, fully specified generator.
inline std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

}  // namespace labkit
