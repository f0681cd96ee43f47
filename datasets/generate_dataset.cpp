// generate_dataset --pattern P --width W --height H [--seed S] --output FILE.png
// Writes one deterministic test image (see common/labkit/generators.hpp for the patterns).
#include <cstdio>
#include <exception>

#include "args.hpp"
#include "labkit/generators.hpp"
#include "labkit/image_io.hpp"

int main(int argc, char** argv) {
    try {
        std::string patterns;
        for (const auto& p : labkit::kPatterns) patterns += std::string(patterns.empty() ? "" : ", ") + std::string(p.name);
        grader::Args args("generate_dataset --pattern P --width W --height H [--seed S] --output FILE.png",
                          "Writes one deterministic 8-bit gray test image. The same pattern, size and seed give the\n"
                          "same pixels on every machine. Patterns: " + patterns + ".");
        args.option("pattern", "P", "what to draw", "random")
            .option("width", "W", "width in pixels")
            .option("height", "H", "height in pixels")
            .option("seed", "S", "seed of the random patterns", "1")
            .option("output", "FILE.png", "where to write it");
        if (!args.parse(argc - 1, argv + 1)) return 0;
        if (!args.has("width") || !args.has("height") || !args.has("output"))
            throw grader::UsageError("--width, --height and --output are required (see --help)");
        const auto pattern = labkit::parse_pattern(args.get("pattern"));
        if (!pattern) throw grader::UsageError("unknown pattern '" + args.get("pattern") + "'; one of: " + patterns);
        const long long w = grader::parse_int(args.get("width"), "--width");
        const long long h = grader::parse_int(args.get("height"), "--height");
        labkit::check_image_size(w, h, "requested image");
        const auto image = labkit::generate(*pattern, static_cast<int>(w), static_cast<int>(h),
                                            static_cast<std::uint64_t>(grader::parse_int(args.get("seed"), "--seed")));
        labkit::save_png(args.get("output"), image.view());
        return 0;
    } catch (const grader::UsageError& e) {
        std::fprintf(stderr, "generate_dataset: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "generate_dataset: error: %s\n", e.what());
        return 1;
    }
}
