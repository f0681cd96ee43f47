// generate_dataset --pattern P --width W --height H [--seed S] [--photo IMAGE|DIR] --output FILE.png
// Writes one deterministic test image (see common/labkit/generators.hpp for the patterns).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <stdexcept>

#include "labkit/generators.hpp"
#include "labkit/image_io.hpp"

int main(int argc, char** argv) {
    std::string patterns;
    for (const auto& p : labkit::kPatterns) patterns += std::string(patterns.empty() ? "" : ", ") + std::string(p.name);
    CLI::App app{"Writes one deterministic 8-bit gray test image. The same pattern, size and seed give the\n"
                 "same pixels on every machine. Patterns: " + patterns + ".",
                 "generate_dataset"};
    std::string pattern_name = "random", output, photo;
    long long width = 0, height = 0;
    std::uint64_t seed = 1;
    app.add_option("--pattern", pattern_name, "what to draw")->capture_default_str();
    app.add_option("--width", width, "width in pixels")->required();
    app.add_option("--height", height, "height in pixels")->required();
    app.add_option("--seed", seed, "seed of the random patterns")->capture_default_str();
    app.add_option("--photo", photo, "the photo pattern's photo: an image, or a folder's first (as grade --photos)");
    app.add_option("--output", output, "where to write it (PNG)")->required();
    constexpr int kUsageExit = 2;
    try {
        app.parse(argc, argv);
        const auto pattern = labkit::parse_pattern(pattern_name);
        if (!pattern) throw std::invalid_argument("unknown pattern '" + pattern_name + "'; one of: " + patterns);
        labkit::check_image_size(width, height, "requested image");
        if (*pattern == labkit::Pattern::photo && photo.empty())
            throw std::invalid_argument("the photo pattern needs --photo IMAGE|DIR");
        if (!photo.empty() && std::filesystem::is_directory(photo)) {
            const auto images = labkit::images_in(photo);
            if (images.empty()) throw std::invalid_argument("--photo " + photo + ": no image in that folder");
            photo = images.front().string();
            std::printf("the photo pattern mirrors %s\n", photo.c_str());
        }
        if (!photo.empty()) labkit::use_photo(labkit::load_gray(photo));
        const auto image = labkit::generate(*pattern, static_cast<int>(width), static_cast<int>(height), seed);
        labkit::save_png(output, image.view());
        return 0;
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : kUsageExit;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "generate_dataset: error: %s\n", e.what());
        return 1;
    }
}
