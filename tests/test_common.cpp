// The shared kit code: image files (good and bad), generators, tables, JSON, arguments, and the
// process isolation the grader relies on to survive broken submissions.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "args.hpp"
#include "catch.hpp"
#include "compare.hpp"
#include "isolate.hpp"
#include "json.hpp"
#include "labkit/errors.hpp"
#include "labkit/generators.hpp"
#include "labkit/image_io.hpp"
#include "labkit/table.hpp"
#include "labkit/timing.hpp"

namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
    const auto dir = fs::temp_directory_path() / ("labkit-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
}

void write_bytes(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

std::string read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The message must name the file and contain the reason.
void require_image_error(const fs::path& p, const std::string& reason) {
    CAPTURE(p.string(), reason);
    try {
        labkit::load_gray(p.string());
        FAIL("no error for " << p);
    } catch (const labkit::ImageError& e) {
        const std::string what = e.what();
        CAPTURE(what);
        CHECK(what.find(p.string()) != std::string::npos);
        CHECK(what.find(reason) != std::string::npos);
    }
}

}  // namespace

TEST_CASE("a PNG round trip keeps every gray level", "[common][image]") {
    const auto dir = temp_dir();
    const auto img = labkit::generate(labkit::Pattern::random, 37, 11, 5);
    labkit::save_png((dir / "r.png").string(), img.view());
    const auto back = labkit::load_gray((dir / "r.png").string());
    REQUIRE(back.width() == 37);
    REQUIRE(back.height() == 11);
    for (int y = 0; y < 11; ++y)
        for (int x = 0; x < 37; ++x) REQUIRE(back(x, y) == img(x, y));
}

TEST_CASE("colour is converted with the BT.601 weights", "[common][image]") {
    const auto dir = temp_dir();
    // Pure red, green, blue and white pixels.
    const std::vector<std::uint8_t> rgb = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
    labkit::save_png_rgb((dir / "c.png").string(), rgb.data(), 4, 1);
    const auto g = labkit::load_gray((dir / "c.png").string());
    CHECK(int(g(0, 0)) == 77);   // (77 * 255 + 128) >> 8
    CHECK(int(g(1, 0)) == 149);  // (150 * 255 + 128) >> 8
    CHECK(int(g(2, 0)) == 29);
    CHECK(int(g(3, 0)) == 255);  // the weights sum to 256: white stays white
}

TEST_CASE("bad image files give a clear error, never a crash", "[common][image]") {
    const auto dir = temp_dir();
    require_image_error(dir / "missing.png", "no such file");
    write_bytes(dir / "empty.png", "");
    require_image_error(dir / "empty.png", "empty");
    write_bytes(dir / "text.png", "this is not an image at all");
    require_image_error(dir / "text.png", "not a readable");
    require_image_error(dir, "is a directory");

    const auto img = labkit::generate(labkit::Pattern::random, 64, 64, 1);
    labkit::save_png((dir / "good.png").string(), img.view());
    const std::string good = read_bytes(dir / "good.png");
    write_bytes(dir / "truncated.png", good.substr(0, good.size() / 2));
    require_image_error(dir / "truncated.png", "corrupt or truncated");

    // A PGM header claiming 100000 x 100000 pixels: refused before any allocation.
    write_bytes(dir / "huge.pgm", "P5\n100000 100000\n255\n" + std::string(16, '\0'));
    require_image_error(dir / "huge.pgm", "too large");
    fs::remove_all(dir);
}

TEST_CASE("generators are deterministic and cover their ranges", "[common][generators]") {
    for (const auto& p : labkit::kPatterns) {
        CAPTURE(std::string(p.name));
        const auto a = labkit::generate(p.pattern, 33, 17, 42), b = labkit::generate(p.pattern, 33, 17, 42);
        REQUIRE(std::equal(a.data(), a.data() + a.pixels(), b.data()));
        REQUIRE(labkit::parse_pattern(p.name) == p.pattern);
    }
    const auto full = labkit::generate(labkit::Pattern::full, 5, 5, 0);
    CHECK(full(4, 4) == 255);
    const auto low = labkit::generate(labkit::Pattern::low_contrast, 64, 64, 3);
    CHECK(*std::min_element(low.data(), low.data() + low.pixels()) >= 100);
    CHECK(*std::max_element(low.data(), low.data() + low.pixels()) < 140);
    const auto r1 = labkit::generate(labkit::Pattern::random, 64, 64, 1), r2 = labkit::generate(labkit::Pattern::random, 64, 64, 2);
    CHECK_FALSE(std::equal(r1.data(), r1.data() + r1.pixels(), r2.data()));
    CHECK_FALSE(labkit::parse_pattern("plaid").has_value());
}

TEST_CASE("tables render for terminal, Markdown and CSV", "[common][table]") {
    labkit::Table t("Times", {"resolution", "gpu-01", "note"});
    t.add_row({"1024²", "1.25", "a, \"quoted\" cell"});
    const auto term = t.terminal();
    CHECK(term.find("resolution") != std::string::npos);
    CHECK(term.find("1024²") != std::string::npos);
    CHECK(t.markdown().find("| 1024² | 1.25 |") != std::string::npos);
    CHECK(t.csv().find("\"a, \"\"quoted\"\" cell\"") != std::string::npos);
}

TEST_CASE("JSON escapes strings and drops non-finite numbers", "[common][json]") {
    auto o = grader::Json::object().set("s", "a\"b\\c\nd").set("nan", std::nan("")).set("n", 3);
    const auto text = o.dump(0);
    CHECK(text == "{\"s\":\"a\\\"b\\\\c\\nd\",\"nan\":null,\"n\":3}");
}

TEST_CASE("arguments: sizes, lists, wildcards, errors", "[common][args]") {
    CHECK(grader::parse_size("1024x768") == std::pair{1024, 768});
    CHECK(grader::parse_size("512") == std::pair{512, 512});
    CHECK_THROWS_AS(grader::parse_size("0x5"), grader::UsageError);
    CHECK_THROWS_AS(grader::parse_size("axb"), grader::UsageError);
    CHECK(grader::split_list("a,,b") == std::vector<std::string>{"a", "b"});
    CHECK(grader::split_tabs("a\t\tb") == std::vector<std::string>{"a", "", "b"});
    CHECK(grader::glob_match("gpu-02*", "gpu-02-kogge-stone-s256-b8"));
    CHECK_FALSE(grader::glob_match("gpu-02*", "gpu-03-brent-kung-s256-b8"));

    grader::Args args("t", "test");
    args.option("runs", "N", "runs").option("quick", "", "quick");
    char a0[] = "--runs", a1[] = "7", a2[] = "--quick";
    char* argv[] = {a0, a1, a2};
    REQUIRE(args.parse(3, argv));
    CHECK(args.get("runs") == "7");
    CHECK(args.has("quick"));
    char b0[] = "--bogus";
    char* bad[] = {b0};
    grader::Args args2("t", "test");
    CHECK_THROWS_AS(args2.parse(1, bad), grader::UsageError);
}

TEST_CASE("statistics: median, spread", "[common][timing]") {
    const auto s = labkit::summarize({5, 1, 3, 2, 4});
    CHECK(s.median == 3);
    CHECK(s.min == 1);
    CHECK(s.max == 5);
    CHECK(labkit::summarize({1, 2, 3, 4}).median == 2.5);
    labkit::RunPolicy fixed{};
    fixed.fixed_runs = 3;
    CHECK(fixed.more(2, 1e9));
    CHECK_FALSE(fixed.more(3, 0));
}

TEST_CASE("comparison finds the first mismatch, unwritten elements and guard writes", "[common][compare]") {
    labkit::HostImage<std::uint32_t> want(4, 3, 1), got(4, 3, 1);
    got(2, 1) = 9;
    got(3, 2) = 0xDEAD;
    const auto m = grader::compare<std::uint32_t>(got.view(), want.view(), 0xDEAD);
    CHECK(m.wrong == 2);
    CHECK(m.unwritten == 1);
    CHECK(m.x == 2);
    CHECK(m.y == 1);
    CHECK(m.got == 9);
    CHECK(m.want == 1);
    CHECK(grader::describe(m, 12) == "first mismatch at (x=2, y=1): got 9, want 1; 2 of 12 wrong (1 never written)");

    const std::size_t pitch = 6;  // 4 wide + 2 guard, 3 rows + a guard row
    std::vector<std::uint32_t> all(pitch * 4, 7);
    CHECK_FALSE(grader::find_guard_write<std::uint32_t>(all, 4, 3, pitch, 7).hit);
    all[1 * pitch + 5] = 0;
    const auto hit = grader::find_guard_write<std::uint32_t>(all, 4, 3, pitch, 7);
    CHECK(hit.hit);
    CHECK(hit.x == 5);
    CHECK(hit.y == 1);
}

TEST_CASE("an isolated child reports lines, exceptions, crashes and hangs", "[common][isolate]") {
    SECTION("lines arrive in order") {
        const auto out = grader::run_isolated([](grader::Reporter& r) {
            r.send("a", "1");
            r.send("b", "two\tfields");
        }, 10);
        CHECK(out.end == grader::ChildOutcome::End::exited);
        CHECK(out.exit_code == 0);
        CHECK(out.last("a") == "1");
        CHECK(out.last("b") == "two\tfields");
    }
    SECTION("an exception becomes a line") {
        const auto out = grader::run_isolated([](grader::Reporter&) { throw std::runtime_error("boom"); }, 10);
        CHECK(out.last("exception") == "boom");
        CHECK(out.exit_code != 0);
    }
    SECTION("a crash is a verdict, not the end of the grader") {
        const auto out = grader::run_isolated([](grader::Reporter&) { ::raise(SIGSEGV); }, 10);
        CHECK(out.end == grader::ChildOutcome::End::crashed);
        CHECK(out.describe().find("SIGSEGV") != std::string::npos);
    }
    SECTION("a silent child is killed after the timeout") {
        const auto out = grader::run_isolated([](grader::Reporter& r) {
            r.send("begin", "forever");
            for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        }, 1);
        CHECK(out.end == grader::ChildOutcome::End::timed_out);
        CHECK(out.last("begin") == "forever");
    }
}
