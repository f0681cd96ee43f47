// The shared kit code: image files (good and bad), generators, tables, the grader <-> runner
// protocol, comparisons, and the process control the grader relies on to survive broken runners.
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "catch.hpp"
#include "compare.hpp"
#include "cpu_clock.hpp"
#include "cases.hpp"
#include "process.hpp"
#include "sandbox.hpp"
#include "protocol.hpp"
#include "labkit/digest.hpp"
#include "labkit/errors.hpp"
#include "labkit/generators.hpp"
#include "labkit/gpu_limits.hpp"
#include "labkit/guard.hpp"
#include "labkit/launch.hpp"
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
    labkit::GrayImage photo(3, 2);  // values 10 * (row) + column: every pixel tells where it came from
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 3; ++x) photo(x, y) = static_cast<std::uint8_t>(10 * y + x);
    labkit::use_photo(photo);
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
    const auto skewed = labkit::generate(labkit::Pattern::skewed, 200, 100, 7);
    const auto white = std::count(skewed.data(), skewed.data() + skewed.pixels(), 255);
    CHECK(white > 0.88 * skewed.pixels());  // 90% white, give or take the noise
    CHECK(white < 0.92 * skewed.pixels());
    CHECK(std::count(skewed.data(), skewed.data() + skewed.pixels(), 0) > 0);  // the rest spans the levels
    const auto r1 = labkit::generate(labkit::Pattern::random, 64, 64, 1), r2 = labkit::generate(labkit::Pattern::random, 64, 64, 2);
    CHECK_FALSE(std::equal(r1.data(), r1.data() + r1.pixels(), r2.data()));
    CHECK_FALSE(labkit::parse_pattern("plaid").has_value());
}

TEST_CASE("the photo pattern mirrors its photo and shifts it by the seed", "[common][generators]") {
    labkit::GrayImage photo(3, 2);
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 3; ++x) photo(x, y) = static_cast<std::uint8_t>(10 * y + x);
    labkit::use_photo(photo);
    const int w = 13, h = 9;
    std::set<std::array<int, 3>> shifts;  // the first two columns' and rows' photo indices name the shift
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        CAPTURE(seed);
        const auto img = labkit::generate(labkit::Pattern::photo, w, h, seed);
        // Every pixel is a photo pixel; a step right (down) moves one column (row) of the photo,
        // or stays on it at a mirrored edge.
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int col = img(x, y) % 10, row = img(x, y) / 10;
                REQUIRE((col < 3 && row < 2));
                if (x + 1 < w) REQUIRE(std::abs(img(x + 1, y) % 10 - col) <= 1);
                if (y + 1 < h) REQUIRE(std::abs(img(x, y + 1) / 10 - row) <= 1);
                if (x + 2 < w && img(x + 1, y) % 10 == col) REQUIRE(img(x + 2, y) % 10 != col);  // an edge, once
            }
        // Each row is one photo row; each column one photo column.
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) REQUIRE(img(x, y) / 10 == img(0, y) / 10);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) REQUIRE(img(x, y) % 10 == img(x, 0) % 10);
        shifts.insert({img(0, 0), img(1, 0) % 10, img(0, 1) / 10});
    }
    CHECK(shifts.size() > 10);  // of 6 x 4 shifts: the seed moves the image, across and down
    labkit::use_photo(labkit::GrayImage(1, 1, 7));
    const auto one = labkit::generate(labkit::Pattern::photo, 5, 4, 3);
    CHECK(std::all_of(one.data(), one.data() + one.pixels(), [](std::uint8_t v) { return v == 7; }));
    CHECK_THROWS_AS(labkit::use_photo(labkit::GrayImage{}), std::invalid_argument);
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

TEST_CASE("case sizes, raw image files, manifests and perf lines", "[common][protocol]") {
    CHECK(protocol::parse_sizes("1024x768,512") == std::vector<protocol::Size>{{1024, 768}, {512, 512}});
    CHECK(protocol::parse_sizes("quick") == protocol::quick_sizes());
    CHECK(protocol::parse_sizes("quick,9x9").size() == protocol::kQuickSizes.size() + 1);
    CHECK(protocol::default_sizes().size() == protocol::kQuickSizes.size() + protocol::kLargeSizes.size());
    CHECK_THROWS_AS(protocol::parse_sizes("0x5"), std::invalid_argument);
    CHECK_THROWS_AS(protocol::parse_sizes("axb"), std::invalid_argument);
    CHECK_THROWS_AS(protocol::parse_sizes("12x"), std::invalid_argument);
    CHECK(protocol::split_tabs("a\t\tb") == std::vector<std::string>{"a", "", "b"});

    const auto dir = std::filesystem::temp_directory_path() / ("labkit-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    labkit::HostImage<std::uint32_t> image(5, 3);
    for (std::size_t i = 0; i < image.pixels(); ++i) image.data()[i] = static_cast<std::uint32_t>(i * 7919);
    protocol::write_raw<std::uint32_t>(dir / "a.raw", image.view());
    const auto back = protocol::read_raw<std::uint32_t>(dir / "a.raw");
    CHECK(back.width() == 5);
    CHECK(back.height() == 3);
    CHECK(std::equal(back.data(), back.data() + back.pixels(), image.data()));
    CHECK_THROWS_WITH(protocol::read_raw<std::uint8_t>(dir / "a.raw"), contains_text("elements of 4 bytes"));
    std::filesystem::resize_file(dir / "a.raw", 40);  // a short answer
    CHECK_THROWS_WITH(protocol::read_raw<std::uint32_t>(dir / "a.raw"), contains_text("malformed answer"));
    CHECK_THROWS_WITH(protocol::read_raw<std::uint32_t>(dir / "missing.raw"), contains_text("no answer file"));

    protocol::write_manifest(dir / "m.tsv", {{"in-0.raw", "-"}, {"in-1.raw", "k=3"}});
    const auto m = protocol::read_manifest(dir / "m.tsv");
    REQUIRE(m.size() == 2);
    CHECK(m[1].input == "in-1.raw");
    CHECK(m[1].params == "k=3");
    std::filesystem::remove_all(dir);

    const protocol::PerfLine p{"skewed", "k=5", 1024, 1024, 4, 1.5, 1.25, 2, 9, 3.5, 5.75, 0.125, 42.5, 0.0625, 7.25, {0.25, 0.5}};
    const auto q = protocol::decode_perf(protocol::encode(p));
    CHECK(q.pattern == "skewed");
    CHECK(q.params == "k=5");
    CHECK(q.width == 1024);
    CHECK(q.runs == 9);
    CHECK(q.e2e_ms == 3.5);
    CHECK(q.threads == 4);
    CHECK(q.cpu_ms == 5.75);
    CHECK(q.late_ms == 0.125);
    CHECK(q.first_ms == 42.5);
    CHECK(q.noise == 0.0625);
    CHECK(q.demand_ms == 7.25);
    CHECK(q.stage_ms == std::vector<double>{0.25, 0.5});
    CHECK_THROWS_AS(protocol::decode_perf("1\t2"), std::invalid_argument);
    CHECK_THROWS_AS(protocol::decode_perf("a\tb\tc\td\te\tf\tg\th\ti\tj"), std::invalid_argument);
    CHECK_THROWS_AS(protocol::decode_perf("plaid\t\t1\t1\t0\t1\t1\t1\t1\t1\t1\t0\t0\t0\t0"), std::invalid_argument);  // no such pattern
    CHECK(protocol::split_commas("a,,b,") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("the answer digest tells images apart, whatever their layout", "[common][protocol]") {
    const auto image = labkit::generate(labkit::Pattern::random, 37, 11, 5);
    const auto digest = [](const labkit::GrayImage& g) {
        return labkit::host_digest(g.data(), 1, g.width(), g.height(), static_cast<std::size_t>(g.width()));
    };
    const std::uint64_t base = digest(image);
    CHECK(digest(image) == base);
    // The same values in padded rows: the padding does not count.
    std::vector<std::uint8_t> padded(48 * 11, 0x5A);
    for (int y = 0; y < 11; ++y) std::copy(image.view().row(y), image.view().row(y) + 37, padded.data() + y * 48);
    CHECK(labkit::host_digest(padded.data(), 1, 37, 11, 48) == base);
    // One value off by one, two values swapped, the image transposed: all differ.
    auto changed = image;
    changed(36, 10) ^= 1;
    CHECK(digest(changed) != base);
    auto swapped = image;
    std::swap(swapped(0, 0), swapped(1, 0));
    if (image(0, 0) != image(1, 0)) CHECK(digest(swapped) != base);
    labkit::GrayImage transposed(11, 37);
    for (int y = 0; y < 11; ++y)
        for (int x = 0; x < 37; ++x) transposed(y, x) = image(x, y);
    CHECK(digest(transposed) != base);
    // Zeros are not free: an all-zero image and an empty one differ.
    CHECK(digest(labkit::GrayImage(37, 11, 0)) != 0);
    CHECK_THROWS(labkit::host_digest(image.data(), 3, 37, 11, 37));
}

TEST_CASE("a grid-stride pixel walk visits what the division would", "[common][launch]") {
    for (const auto& [w, h] : {std::pair{1, 4099}, {4099, 1}, {7, 5}, {255, 257}}) {
        for (const long long stride : {1LL, 3LL, 256LL, 5000LL}) {
            for (const long long first : {0LL, 2LL, stride - 1}) {
                CAPTURE(w, h, stride, first);
                long long i = first;
                labkit::PixelStride p(first, stride, w);
                for (; p.y < h; p.next(), i += stride) {
                    REQUIRE(p.x == i % w);
                    REQUIRE(p.y == i / w);
                }
                CHECK(i >= static_cast<long long>(w) * h);  // it ends exactly when the index passes the image
                CHECK(i - stride < static_cast<long long>(w) * h);
            }
        }
    }
}

TEST_CASE("statistics: median, spread, noise", "[common][timing]") {
    const auto s = labkit::summarize({5, 1, 3, 2, 4});
    CHECK(s.median == 3);
    CHECK(s.min == 1);
    CHECK(s.max == 5);
    CHECK(s.noise == Approx(2.0 / 3));  // quartiles 2 and 4
    CHECK(labkit::summarize({1, 2, 3, 4}).median == 2.5);
    // One outlier among steady runs moves the spread, not the noise.
    const auto outlier = labkit::summarize({10, 10, 10, 10, 10, 10, 10, 10, 30});
    CHECK(outlier.spread == Approx(2.0));
    CHECK(outlier.noise == 0);
    labkit::RunPolicy fixed{};
    fixed.fixed_runs = 3;
    CHECK(fixed.more(2, 1e9));
    CHECK_FALSE(fixed.more(3, 0));
}

TEST_CASE("the process CPU clock counts running and ended threads, up to date", "[common][timing]") {
    // Each thread's own clock (CLOCK_THREAD_CPUTIME_ID, exact) is what the process clock must
    // add up to, whatever share of the cores the machine gives the threads. Three threads spin
    // for 3 ms: the main one, one that ends within the span, one still running when the clock
    // is read. The process clock alone would be up to a tick (4 ms at HZ=250) behind for the
    // running one, and for the main one too under a CPU-time limit.
    rlimit saved{};
    REQUIRE(::getrlimit(RLIMIT_CPU, &saved) == 0);
    constexpr rlim_t kHourS = 3600;
    const rlimit limited{saved.rlim_cur == RLIM_INFINITY ? kHourS : saved.rlim_cur, saved.rlim_max};
    REQUIRE(::setrlimit(RLIMIT_CPU, &limited) == 0);  // as in the sandbox: arms the process CPU timer
    using Clock = std::chrono::steady_clock;
    constexpr auto kSpan = std::chrono::milliseconds(3);
    constexpr double kSlackMs = 0.3;  // the readings' own cost and order
    const auto thread_ms = [](clockid_t clock) {
        timespec t{};
        ::clock_gettime(clock, &t);
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
    };
    constexpr int kRepeats = 9;
    std::vector<double> alone, together;  // process clock less the threads' own, in ms
    for (int r = 0; r < kRepeats; ++r) {
        const double mine0 = thread_ms(CLOCK_THREAD_CPUTIME_ID), cpu0 = protocol::ProcessCpuClock::now_ms();
        for (const auto t0 = Clock::now(); Clock::now() < t0 + kSpan;) {}
        const double cpu = protocol::ProcessCpuClock::now_ms() - cpu0, mine = thread_ms(CLOCK_THREAD_CPUTIME_ID) - mine0;
        alone.push_back(cpu - mine);
    }
    for (int r = 0; r < kRepeats; ++r) {
        std::atomic<bool> stop{false}, started{false};
        std::atomic<double> ended_ms{0};
        std::thread running([&] {
            started = true;
            while (!stop.load(std::memory_order_relaxed)) {}
        });
        while (!started) {}
        clockid_t running_clock{};
        REQUIRE(::pthread_getcpuclockid(running.native_handle(), &running_clock) == 0);
        const double running0 = thread_ms(running_clock), mine0 = thread_ms(CLOCK_THREAD_CPUTIME_ID);
        const double cpu0 = protocol::ProcessCpuClock::now_ms();
        const auto t0 = Clock::now();
        std::thread ended([&] {
            while (Clock::now() < t0 + kSpan) {}
            ended_ms = thread_ms(CLOCK_THREAD_CPUTIME_ID);  // all it ran: it started within the span
        });
        ended.join();
        while (Clock::now() < t0 + kSpan) {}
        const double cpu = protocol::ProcessCpuClock::now_ms() - cpu0;
        const double own = thread_ms(CLOCK_THREAD_CPUTIME_ID) - mine0 + ended_ms + (thread_ms(running_clock) - running0);
        stop = true;
        running.join();
        together.push_back(cpu - own);
    }
    ::setrlimit(RLIMIT_CPU, &saved);
    // The readings sit between the threads' own: the process clock may read a little less than
    // their sum (the running thread's clock is read last), never a tick apart.
    CHECK(std::abs(labkit::summarize(alone).median) <= kSlackMs);
    CHECK(std::abs(labkit::summarize(together).median) <= kSlackMs + 1.0);
}

TEST_CASE("launch configurations: what no GPU starts, and what needs a newer one", "[common][launch]") {
    using labkit::LaunchShape;
    const auto problem = [](const LaunchShape& l, int sm = 75, std::size_t opted_in = 0) {
        return labkit::launch_problem(l, sm, opted_in);
    };
    CHECK(problem({.grid_x = 100, .grid_y = 65535, .block_x = 32, .block_y = 32}).empty());
    CHECK(problem({.block_x = 32, .block_y = 64}).find("2048") != std::string::npos);  // 2048 threads
    CHECK_FALSE(problem({.block_x = 1, .block_z = 65}).empty());                      // z over 64
    CHECK(problem({.grid_y = 65536}).find("65535") != std::string::npos);
    CHECK_FALSE(problem({.grid_x = 0}).empty());  // an empty image must launch nothing
    // Dynamic shared memory: 48 KB without opting in, then the architecture's own limit.
    constexpr std::size_t kKib = 1024;
    CHECK(problem({.shared_bytes = 48 * kKib}).empty());
    CHECK(problem({.shared_bytes = 60 * kKib}).find("cudaFuncSetAttribute") != std::string::npos);
    CHECK(problem({.shared_bytes = 60 * kKib}, 75, 60 * kKib).empty());
    const LaunchShape big{.shared_bytes = 160 * kKib};
    CHECK(problem(big, 75, 160 * kKib).find("sm_75 gives a block at most 64 KB") != std::string::npos);
    CHECK(problem(big, 90, 160 * kKib).empty());
    CHECK(labkit::newer_gpus_for(big, 75, 160 * kKib) == "sm_80, sm_87, sm_90, sm_100");
    CHECK(labkit::newer_gpus_for({.block_x = 2048}, 75, 0).empty());  // no GPU at all
    CHECK(labkit::arch_limits(86).max_shared_optin == 99 * kKib);
    CHECK(labkit::arch_limits(61).sm == 75);  // older than any listed: the oldest the kit builds for
}

TEST_CASE("a step's needs against a GPU: what it needs and what this GPU has", "[common][launch]") {
    constexpr std::size_t kKib = 1024;
    // A T4 (sm_75, 64 KB a block) and a step of 160 KB: skipped, with both numbers.
    CHECK(labkit::unmet_needs(75, "", 160 * kKib, 75, 64 * kKib) ==
          "needs 160 KB of shared memory per block; this GPU (sm_75) allows 64 KB");
    CHECK(labkit::unmet_needs(75, "", 160 * kKib, 90, 227 * kKib).empty());
    CHECK(labkit::unmet_needs(75, "", 64 * kKib, 75, 64 * kKib).empty());  // exactly the limit fits
    CHECK(labkit::unmet_needs(80, "cooperative launch", 0, 75, 64 * kKib) ==
          "needs compute capability 8.0 or newer (cooperative launch); this GPU (sm_75) has 7.5");
    CHECK(labkit::unmet_needs(80, "", 0, 86, 99 * kKib).empty());
    CHECK(labkit::device_shortfall(99 * kKib + 1, 86, 99 * kKib) ==
          "needs 101377 bytes of shared memory per block; this GPU (sm_86) allows 99 KB");
}

TEST_CASE("a noisy CPU measurement is stretched until its median settles, within bounds", "[common][timing]") {
    using labkit::RunPolicy;
    CHECK(labkit::median_error(0.4, 16) == Approx(0.1));  // the spread over the root of the count
    const RunPolicy adaptive{};
    // noisy: unsettled at the usual counts; steady: settled at 10 runs, whatever the time
    const double noisy = 4 * RunPolicy::kSettledError * std::sqrt(RunPolicy::kMaxRuns),
                 steady = 0.9 * RunPolicy::kSettledError * std::sqrt(10.0);
    const double past_target = RunPolicy::kTargetMs + 1;
    CHECK(adaptive.more(1, 1e9, noisy));                 // the minimum runs, whatever the time
    CHECK_FALSE(adaptive.more(10, past_target));          // GPU timings pass no noise: unchanged
    CHECK_FALSE(adaptive.more(10, past_target, steady));  // settled
    CHECK(adaptive.more(10, past_target, noisy));         // not yet: more runs
    CHECK(adaptive.more(RunPolicy::kMaxRuns, past_target, noisy));  // past the usual count too
    CHECK_FALSE(adaptive.more(10, RunPolicy::kSteadyMaxMs, noisy));           // up to a time
    CHECK_FALSE(adaptive.more(RunPolicy::kMaxSettleRuns, past_target, noisy));  // and a count
    // a spread that does not settle in 10 runs does with more: the error shrinks with the count
    const double spread = 2 * steady;
    CHECK(adaptive.more(10, past_target, spread));
    CHECK_FALSE(adaptive.more(40, past_target, spread));
    RunPolicy quick{};
    quick.fixed_runs = 10;  // --quick, --runs 10: the least, for a noisy CPU measurement
    CHECK(quick.more(9, 1e9, noisy));
    CHECK_FALSE(quick.more(10, 1, steady));                // settled: the count asked for
    CHECK_FALSE(quick.more(10, 1));                        // a GPU timing: exactly the count
    CHECK(quick.more(10, 1, noisy));                       // noisy: on, as an adaptive one
    CHECK_FALSE(quick.more(10, RunPolicy::kSteadyMaxMs, noisy));
    CHECK_FALSE(quick.more(RunPolicy::kMaxSettleRuns, 1, noisy));
}

TEST_CASE("comparison finds the first mismatch and unwritten elements, exactly or within a tolerance", "[common][compare]") {
    labkit::HostImage<std::uint32_t> want(4, 3, 1), got(4, 3, 1);
    got(2, 1) = 9;
    got(3, 2) = 0xA5A5A5A5u;  // the poison of a uint32 output
    const auto m = protocol::compare<std::uint32_t>(got.view(), want.view(), protocol::exact());
    CHECK(m.wrong == 2);
    CHECK(m.unwritten == 1);
    CHECK(m.x == 2);
    CHECK(m.y == 1);
    CHECK(m.got == 9);
    CHECK(m.want == 1);
    CHECK(protocol::describe(m, 12, protocol::exact()) ==
          "first mismatch at (x=2, y=1): got 9, want 1; 2 of 12 wrong (1 never written)");

    // An 8-bit poison (0xA5, 165) is a value a wrong formula writes too: its words never claim
    // "never written" for it.
    labkit::HostImage<std::uint8_t> bwant(4, 1, 7), bgot(4, 1, 7);
    bgot(1, 0) = 0xA5;
    const auto b = protocol::compare<std::uint8_t>(bgot.view(), bwant.view(), protocol::exact());
    CHECK(b.unwritten == 1);
    CHECK(protocol::describe(b, 4, protocol::exact()) ==
          "first mismatch at (x=1, y=0): got 165, the poison value (never written, or written as 165), want 7; "
          "1 of 4 wrong (1 hold the poison value 165: never written, or written so)");

    // Floats: a tolerance, the largest error and the PSNR; the poison (0xFF bytes) is a NaN
    // and never within any tolerance.
    labkit::HostImage<float> fwant(3, 1, 100.0f), fgot(3, 1, 100.0f);
    fgot(0, 0) = 100.004f;
    std::memset(&fgot(2, 0), 0xFF, sizeof(float));
    CHECK(std::isnan(fgot(2, 0)));
    const auto tol = protocol::within(0.01, 1e-5);
    const auto f = protocol::compare<float>(fgot.view(), fwant.view(), tol);
    CHECK(f.wrong == 1);
    CHECK(f.unwritten == 1);
    CHECK(f.x == 2);
    CHECK(std::isinf(f.max_error));
    const auto text = protocol::describe(f, 3, tol);
    CHECK(text.find("got the poison NaN (never written, or computed from a read outside the image)") != std::string::npos);
    CHECK(text.find("PSNR") != std::string::npos);
    fgot(2, 0) = 100.0f;
    const auto ok = protocol::compare<float>(fgot.view(), fwant.view(), tol);
    CHECK(ok.ok());
    CHECK(ok.max_error == approx(0.004).margin(1e-5));
    CHECK(protocol::psnr_db(0, 255) == std::numeric_limits<double>::infinity());
}

TEST_CASE("a diff image of a large case is the window around its first mismatch, within the pixel budget", "[common][compare]") {
    constexpr int kSide = protocol::kDiffMaxSide;
    // Within the budget, the whole image, a long strip too.
    const auto strip = protocol::diff_window(4099, 1, 4000, 0);
    CHECK((strip.x0 == 0 && strip.y0 == 0 && strip.width == 4099 && strip.height == 1));
    CHECK(protocol::describe_window(strip, 4099, 1).empty());
    // Beyond it, centred on the mismatch; moved inside the image near an edge.
    const auto centred = protocol::diff_window(8192, 8192, 4000, 5000);
    CHECK((centred.x0 == 4000 - kSide / 2 && centred.y0 == 5000 - kSide / 2));
    CHECK((centred.width == kSide && centred.height == kSide));
    const auto corner = protocol::diff_window(8192, 8192, 8191, 1);
    CHECK((corner.x0 == 8192 - kSide && corner.y0 == 0));
    CHECK(protocol::describe_window(corner, 8192, 8192) == "the 1024x1024 window at (x=7168, y=0) of the 8192x8192 output");
    const auto wide = protocol::diff_window(100000, 20, 99999, 19);  // past the budget, short: its full height
    CHECK((wide.x0 == 100000 - kSide && wide.y0 == 0 && wide.width == kSide && wide.height == 20));

    // The PNG holds the window at full resolution: the wrong pixel is where the window puts it.
    constexpr int kWidth = 3000, kHeight = 2000, kWrongX = 2900, kWrongY = 100;
    labkit::HostImage<std::uint32_t> want(kWidth, kHeight, 1), got(kWidth, kHeight, 1);
    got(kWrongX, kWrongY) = 2;
    const auto m = protocol::compare<std::uint32_t>(got.view(), want.view(), protocol::exact());
    const auto w = protocol::diff_window(kWidth, kHeight, m.x, m.y);
    const labkit::GrayImage background(w.width, w.height, 0);
    const auto dir = temp_dir();
    const auto png = (dir / "diff.png").string();
    protocol::write_diff_png<std::uint32_t>(png, background.view(), protocol::crop(got.view(), w), protocol::crop(want.view(), w),
                                          protocol::exact());
    const auto image = labkit::load_rgb(png);
    CHECK(static_cast<std::size_t>(image.width) * image.height <= protocol::kDiffMaxPixels);
    REQUIRE((image.width == kSide && image.height == kSide));
    const auto rgb = [&](int x, int y) { return &image.rgb[3 * (static_cast<std::size_t>(y) * image.width + x)]; };
    const std::uint8_t* wrong = rgb(kWrongX - w.x0, kWrongY - w.y0);
    CHECK((wrong[0] == 255 && wrong[1] == 0 && wrong[2] == 0));  // red: wrong
    const std::uint8_t* right = rgb(0, 0);
    CHECK((right[0] == 0 && right[1] == 0 && right[2] == 0));  // the dimmed background
    fs::remove_all(dir);
}

namespace {

protocol::SpawnOptions limits(double silence_s, double wall_s = 0) {
    protocol::SpawnOptions o;
    o.silence_timeout_s = silence_s;
    o.wall_limit_s = wall_s;
    return o;
}

protocol::ChildOutcome sh(const std::string& script, const protocol::SpawnOptions& o, const protocol::LineHandler& on_line = {}) {
    return protocol::spawn({"/bin/sh", "-c", script}, o, on_line);
}

}  // namespace

TEST_CASE("a spawned program reports lines, and its crash or hang is a verdict", "[common][process]") {
    SECTION("lines arrive in order on the report pipe, not on stdout") {
        const auto out = sh("echo noise; printf 'a\\t1\\nb\\ttwo\\tfields\\n' >&3", limits(10));
        CHECK(out.end == protocol::ChildOutcome::End::exited);
        CHECK(out.exit_code == 0);
        CHECK(out.last("a") == "1");
        CHECK(out.last("b") == "two\tfields");
        CHECK(out.lines.size() == 2);
    }
    SECTION("control characters from a child never reach the terminal") {
        const auto out = sh("printf 'error\\t\\033[2J\\033[31mred\\a\\n' >&3", limits(10));
        CHECK(out.last("error") == "[2J[31mred");
        CHECK(protocol::printable("a\tb\x1b[0m\r") == "a\tb[0m");
    }
    SECTION("an exit status is kept") {
        CHECK(sh("exit 3", limits(10)).exit_code == 3);
    }
    SECTION("a crash is a verdict, not the end of the grader") {
        const auto out = sh("kill -SEGV $$", limits(10));
        CHECK(out.end == protocol::ChildOutcome::End::crashed);
        CHECK(out.describe().find("SIGSEGV") != std::string::npos);
    }
    SECTION("a silent child is killed after the timeout") {
        const auto out = sh("printf 'begin\\tforever\\n' >&3; sleep 30", limits(1));
        CHECK(out.end == protocol::ChildOutcome::End::timed_out);
        CHECK(out.last("begin") == "forever");
    }
    SECTION("lines that are not progress do not keep a child alive") {
        const auto out = sh("while true; do printf 'begin\\tagain\\n' >&3; sleep 0.1; done", limits(1),
                            [](const std::string& key, const std::string&) { return key == "done"; });
        CHECK(out.end == protocol::ChildOutcome::End::timed_out);
        CHECK(out.describe().find("no progress") != std::string::npos);
    }
    SECTION("a silence limit that the line handler changes applies at once, and says where it came from") {
        // Each case of a runner call has a deadline of its own (grader::check_variant): set at its `begin`.
        protocol::SilenceLimit limit{30, ""};
        auto o = limits(30);
        o.silence_limit = &limit;
        const auto start = std::chrono::steady_clock::now();
        const auto out = sh("printf 'begin\\t1\\n' >&3; sleep 30", o, [&](const std::string& key, const std::string&) {
            if (key == "begin") limit = {1.5, "the case's own deadline"};
            return false;
        });
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        CHECK(out.end == protocol::ChildOutcome::End::timed_out);
        CHECK(took < 10);  // the 1.5 s limit, not the 30 s one it started with
        CHECK(out.describe() == "no progress for 1.5 s: killed (a hang or deadlock?); the case's own deadline");
    }
    SECTION("progress does not keep a child alive past its wall-clock limit") {
        const auto out = sh("while true; do printf 'done\\t1\\n' >&3; sleep 0.1; done", limits(1, 2));
        CHECK(out.end == protocol::ChildOutcome::End::timed_out);
        CHECK(out.describe().find("wall-clock limit of 2 s") != std::string::npos);
    }
    SECTION("the grader's own time on a line (judging, a diff image) is not the child's silence") {
        // The child answers every 0.6 s; the grader spends 1.5 s on each line; the limit is 1 s.
        const auto out = sh("for i in 1 2; do printf 'done\\t%s\\n' $i >&3; sleep 0.6; done", limits(1),
                            [](const std::string&, const std::string&) {
                                std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                                return true;
                            });
        CHECK(out.end == protocol::ChildOutcome::End::exited);
        CHECK(out.last("done") == "2");
    }
    SECTION("a child that closes the pipe and lingers is killed too") {
        const auto out = sh("exec 3>&-; sleep 30", limits(1));
        CHECK(out.end == protocol::ChildOutcome::End::timed_out);
    }
    SECTION("a program that does not exist") {
        const auto out = protocol::spawn({"/nonexistent/runner"}, limits(10));
        CHECK(out.end == protocol::ChildOutcome::End::not_started);
    }
    SECTION("megabytes of output become a log cut at about 1 MiB, with a note") {
        const auto log = std::filesystem::temp_directory_path() / "labkit-test-cut.log";
        auto o = limits(10);
        o.log_path = log.string();
        const auto out = sh("head -c 8000000 /dev/zero | tr '\\0' x; printf 'done\\t1\\n' >&3", o);
        CHECK(out.last("done") == "1");
        const auto size = std::filesystem::file_size(log);
        CHECK(size > protocol::kMaxLogBytes);
        CHECK(size < protocol::kMaxLogBytes + 200);
        std::filesystem::remove(log);
    }
    SECTION("nothing a child started survives it: a setsid daemon is found and killed") {
        const auto marker = std::filesystem::temp_directory_path() / "labkit-test-daemon";
        for (const std::string keeps_pipe : {"", " 3>&-"}) {  // holding the report pipe open, or not
            CAPTURE(keeps_pipe);
            std::filesystem::remove(marker);
            const auto out = sh("setsid sh -c 'sleep 3; touch " + marker.string() + "' > /dev/null 2>&1 < /dev/null" +
                                    keeps_pipe + " & exit 0",
                                limits(10));
            CHECK(out.exit_code == 0);
            std::this_thread::sleep_for(std::chrono::seconds(4));
            CHECK_FALSE(std::filesystem::exists(marker));
        }
    }
    SECTION("a child that fills its folder is stopped") {
        const auto dir = std::filesystem::temp_directory_path() / "labkit-test-fill";
        std::filesystem::create_directories(dir);
        auto o = limits(10);
        o.watched = dir;
        o.watched_bytes = 1 << 20;
        const auto out = sh("cd " + dir.string() + " && i=0; while true; do i=$((i+1)); head -c 100000 /dev/zero > f$i; done", o);
        CHECK(out.end == protocol::ChildOutcome::End::over_limit);
        std::filesystem::remove_all(dir);
    }
}

TEST_CASE("in the sandbox, a child sees only what it is given and leaves nothing behind", "[common][sandbox]") {
    const auto sandbox = protocol::Sandbox::open("auto");
    if (!sandbox.confined()) {  // CI installs bubblewrap; a machine without it checks the rest
        WARN("sandbox not checked: " + sandbox.description());
        return;
    }
    const auto dir = std::filesystem::temp_directory_path() / "labkit-test-sandbox";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "out");
    sandbox.hand_over(dir / "out");
    protocol::SpawnOptions o;
    o.silence_timeout_s = 20;
    o.sandbox = &sandbox;
    o.confinement.writable = dir / "out";
    const auto kit = std::filesystem::current_path().string();
    auto run = [&](const std::string& script) { return protocol::spawn({"/bin/sh", "-c", script}, o); };
    CHECK(run("test -e /etc/shadow").exit_code != 0);       // no /etc beyond the loader's cache
    CHECK(run("test -e " + kit).exit_code != 0);             // nor the kit, results, submissions
    CHECK(run("echo x > " + (dir / "out" / "f").string()).exit_code == 0);  // its one folder
    run("echo x > " + (dir / "g").string() + "; echo x > " + kit + "/g");  // private /tmp, or refused
    CHECK(std::filesystem::exists(dir / "out" / "f"));
    CHECK_FALSE(std::filesystem::exists(dir / "g"));
    CHECK_FALSE(std::filesystem::exists(kit + "/g"));
    CHECK(run("kill -STOP $PPID; kill -9 -1; true").end != protocol::ChildOutcome::End::timed_out);
    if (::geteuid() == 0) CHECK(run("test \"$(id -u)\" = 65534").exit_code == 0);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a CPU output has guard space: a write past the end is found", "[common][guard]") {
    labkit::GuardedHostImage<std::uint32_t> out(5, 3, 0xAB);
    auto v = out.view();
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 5; ++x) v(x, y) = 1;
    CHECK(out.guard_report("the output").empty());
    v.data[v.pitch * 2 + 5] = 7;  // one past the end of the last row
    CHECK(out.guard_report("the output") == "the output wrote outside its 5x3 buffer, at (x=5, y=2) in the row padding");
    out.poison();
    v.data[-1] = 7;  // one before the first element
    CHECK(out.guard_report("the output").find("before the first row") != std::string::npos);
}
