// The image loader never lies: every valid kind of file gives the right pixels, and every broken
// one a clear ImageError, never uninitialised memory or a stale reason. The files come from
// tests/make_test_images.py (LABKIT_TEST_IMAGES names their folder); a seeded fuzz run mutates
// them and the kit's photos: no signal, no hang, and either a clear error or an image.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "catch.hpp"
#include "labkit/errors.hpp"
#include "labkit/generators.hpp"
#include "labkit/image_io.hpp"

namespace fs = std::filesystem;

namespace {

fs::path images() {
    const char* dir = std::getenv("LABKIT_TEST_IMAGES");
    REQUIRE(dir != nullptr);
    return dir;
}

labkit::GrayImage load(const std::string& name) { return labkit::load_gray((images() / name).string()); }

}  // namespace

TEST_CASE("valid files of every supported kind load with the right pixels", "[common][images]") {
    const auto pgm = load("ok.pgm");
    CHECK(pgm.width() == 64);
    CHECK(pgm(63, 10) == 63);
    const auto ascii = load("ok_ascii.pgm");  // P2, with a comment in the header
    REQUIRE(ascii.width() == 3);
    CHECK(ascii(0, 0) == 0);
    CHECK(ascii(2, 1) == 255);
    const auto scaled = load("ok_ascii_maxval1000.pgm");
    CHECK(scaled(0, 0) == 0);
    CHECK(scaled(1, 0) == 255);
    const auto deep = load("ok_16bit.pgm");
    CHECK(deep(1, 0) == 255);
    CHECK(load("ok.ppm")(0, 0) == 255);
    for (const char* name : {"ok.tga", "ok_rle.tga"}) {
        CAPTURE(name);
        const auto tga = load(name);
        CHECK(tga(0, 0) == 0);
        CHECK(tga(1, 1) == 255);
    }
    const auto bmp = load("ok_top_down.bmp");  // a negative height: rows stored top first
    REQUIRE(bmp.height() == 3);
    CHECK(bmp(0, 0) == 255);
    CHECK(bmp(0, 2) == 0);
    const auto png = load("ok_rgba16.png");
    REQUIRE(png.width() == 64);
    CHECK(png(0, 0) == 77);  // opaque red, 16 bits: the luma of (255, 0, 0), (77 * 255 + 128) >> 8
}

TEST_CASE("colour: RGB as stored, and a new luma under the same chroma", "[common][images]") {
    const auto red = labkit::load_rgb((images() / "ok_rgba16.png").string());
    REQUIRE(red.colour);
    CHECK(red.rgb[0] == 255);
    CHECK(red.rgb[1] == 0);
    const auto gray = labkit::load_rgb((images() / "ok.pgm").string());
    CHECK_FALSE(gray.colour);
    CHECK(gray.rgb[3 * 63 + 1] == 63);  // a gray file: the value in all three channels

    // Its own luma gives the image back, to the rounding of one step; a gray image stays gray.
    constexpr int kSide = 48;  // not ok.pgm's size
    labkit::RgbImage photo{kSide, kSide, std::vector<std::uint8_t>(3 * kSide * kSide), true};
    for (std::size_t i = 0; i < photo.rgb.size(); ++i) photo.rgb[i] = static_cast<std::uint8_t>(labkit::mix64(i));
    const auto same = labkit::with_luma(photo, labkit::luma_of(photo).view());
    int worst = 0;
    for (std::size_t i = 0; i < photo.rgb.size(); ++i) worst = std::max(worst, std::abs(photo.rgb[i] - same.rgb[i]));
    CHECK(worst <= 2);
    labkit::GrayImage brighter(gray.width, gray.height, 200);
    const auto lifted = labkit::with_luma(gray, brighter.view());
    CHECK(lifted.rgb[0] == 200);
    CHECK(lifted.rgb[1] == 200);
    CHECK_THROWS_AS(labkit::with_luma(photo, brighter.view()), labkit::ImageError);  // sizes differ
}

TEST_CASE("broken files are refused with a reason that names the problem", "[common][images]") {
    const std::pair<const char*, const char*> cases[] = {
        {"truncated.pgm", "truncated"},          {"truncated_huge.pgm", "truncated"},
        {"huge_width.pgm", "large"},             {"truncated.ppm", "truncated"},
        {"truncated_ascii.pgm", "truncated"},    {"truncated.tga", "truncated"},
        {"truncated_rle.tga", "truncated"},      {"pbm.pbm", "not supported"},
        {"huge_rgba16.png", "more than the 2 GiB"},
    };
    for (const auto& [name, reason] : cases) {
        CAPTURE(name);
        CHECK_THROWS_WITH(load(name), contains_text(reason));
    }
}

TEST_CASE("fuzzing: mutated files give an image or a clear error, never a crash", "[common][images][fuzz]") {
    constexpr int kMutants = 300;
    constexpr int kMaxFlips = 8;
    std::vector<fs::path> seeds;
    for (const auto& f : fs::directory_iterator(images()))
        if (f.path().filename().string().rfind("ok", 0) == 0) seeds.push_back(f.path());
    for (const auto& f : fs::directory_iterator(fs::path(LABKIT_PHOTOS_DIR))) seeds.push_back(f.path());
    std::sort(seeds.begin(), seeds.end());
    REQUIRE(!seeds.empty());
    const auto tmp = fs::temp_directory_path() / ("labkit-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(tmp);
    for (int i = 0; i < kMutants; ++i) {
        const auto& seed = seeds[static_cast<std::size_t>(i) % seeds.size()];
        std::ifstream in(seed, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::uint64_t r = labkit::mix64(static_cast<std::uint64_t>(i));
        const int flips = 1 + static_cast<int>(r % kMaxFlips);
        for (int k = 0; k < flips && !bytes.empty(); ++k) {
            r = labkit::mix64(r);
            // Mostly the first bytes (headers), where a flip does the most damage.
            const std::size_t span = (r & 1) ? std::min<std::size_t>(bytes.size(), 64) : bytes.size();
            bytes[(r >> 8) % span] = static_cast<char>(r >> 40);
        }
        if (r % 3 == 0) bytes.resize(bytes.size() * ((r >> 16) % 100) / 100);  // and some truncated
        const auto path = tmp / ("mutant-" + std::to_string(i) + seed.extension().string());
        std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        CAPTURE(i, seed.filename().string());
        try {
            const auto img = labkit::load_gray(path.string());
            CHECK(img.width() > 0);
            CHECK(img.height() > 0);
        } catch (const labkit::ImageError& e) {
            CHECK(std::string(e.what()).find("cannot read image") != std::string::npos);
        }
    }
    fs::remove_all(tmp);
}
