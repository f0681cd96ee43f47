// `integral_image run VARIANT --input IMG --output OUT.png [--raw FILE]`: one variant, one image,
// something to look at.
#include <cstdio>
#include <algorithm>
#include <fstream>
#include <thread>

#include "args.hpp"
#include "checks.hpp"
#include "grading.hpp"
#include "labkit/errors.hpp"
#include "labkit/image_io.hpp"

namespace integral_image {
namespace {

using u32 = std::uint32_t;

// The table wraps modulo 2^32 on large bright images. Along a row the true table grows by a
// column sum (at most 255 * height < 2^32), so each step's increase is recovered exactly from
// the wrapped difference; the first column grows by single pixels. That gives the true 64-bit
// table, from which the visualization shows the mean of the rectangle [0, x] x [0, y].
labkit::GrayImage visualize(const labkit::HostImage<u32>& sat) {
    const int w = sat.width(), h = sat.height();
    labkit::GrayImage img(w, h);
    std::uint64_t first_column = 0;
    for (int y = 0; y < h; ++y) {
        first_column += static_cast<u32>(sat(0, y) - (y > 0 ? sat(0, y - 1) : 0u));
        std::uint64_t value = first_column;
        for (int x = 0; x < w; ++x) {
            if (x > 0) value += static_cast<u32>(sat(x, y) - sat(x - 1, y));
            const double mean = static_cast<double>(value) / ((x + 1.0) * (y + 1.0));
            img(x, y) = static_cast<std::uint8_t>(std::min(255.0, mean + 0.5));
        }
    }
    return img;
}

void write_raw(const std::string& path, const labkit::HostImage<u32>& sat) {
    std::ofstream out(path, std::ios::binary);
    if (path.size() > 4 && path.substr(path.size() - 4) == ".csv") {
        for (int y = 0; y < sat.height(); ++y)
            for (int x = 0; x < sat.width(); ++x) out << sat(x, y) << (x + 1 == sat.width() ? "\n" : ",");
    } else {
        // Little-endian uint32, row-major, no header: numpy.fromfile(path, '<u4').reshape(height, width).
        out.write(reinterpret_cast<const char*>(sat.data()), static_cast<std::streamsize>(sat.pixels() * sizeof(u32)));
    }
    if (!out) throw labkit::ImageError("cannot write '" + path + "'");
}

}  // namespace

int run_main(int argc, char** argv) {
    grader::Args args("integral_image run VARIANT --input IMG --output OUT.png [--raw FILE]",
                      "Runs one variant on one image (PNG, JPEG, PGM; colour becomes BT.601 gray) and writes a\n"
                      "picture of the result: the mean of the rectangle from the origin to each pixel, computed\n"
                      "from the table. --raw also writes the uint32 values (.csv as text, anything else as\n"
                      "little-endian binary, row-major).");
    args.option("input", "IMG", "image to read").option("output", "OUT.png", "visualization to write")
        .option("raw", "FILE", "also write the raw table")
        .option("threads", "N", "OpenMP threads for cpu-openmp (default: all cores)");
    if (!args.parse(argc, argv)) return 0;
    if (args.positional().size() != 1) throw grader::UsageError("name one variant (see `integral_image list`)");
    if (!args.has("input") || !args.has("output")) throw grader::UsageError("--input and --output are required");
    const std::string name = args.positional()[0];
    const auto entries = all_entries();
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.name == name; });
    if (it == entries.end()) throw grader::UsageError("no variant '" + name + "' (see `integral_image list`)");

    const auto input = labkit::load_gray(args.get("input"));
    const int threads = args.has("threads") ? static_cast<int>(grader::parse_int(args.get("threads"), "--threads"))
                                            : std::max(1u, std::thread::hardware_concurrency());
    const auto sat = compute(*it, input, threads);
    labkit::save_png(args.get("output"), visualize(sat).view());
    std::printf("%s: %dx%d -> %s (mean of the rectangle [0,x]x[0,y])\n", name.c_str(), input.width(), input.height(),
                args.get("output").c_str());
    if (args.has("raw")) {
        write_raw(args.get("raw"), sat);
        std::printf("raw uint32 table -> %s\n", args.get("raw").c_str());
    }
    return 0;
}

}  // namespace integral_image
