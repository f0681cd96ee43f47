// The grader's side of one exercise: it builds the cases and their expected outputs with the
// lab's reference, writes the inputs for the runner, judges each answer, times the reference,
// and runs `run`. Written once as a template over the lab's contract (grader/protocol/exercise.hpp);
// the harness drives it through the lab-independent GraderExercise interface.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cases.hpp"
#include "compare.hpp"
#include "cpu_timing.hpp"
#include "exercise.hpp"
#include "labkit/digest.hpp"
#include "labkit/image_io.hpp"
#include "protocol.hpp"
#include "results.hpp"

namespace grader {

// This side is built on what both sides share (grader/protocol/), named unqualified here.
using namespace protocol;

// A photo's case is named this, then its file's name.
inline constexpr std::string_view kPhotoCasePrefix = "photo ";

struct CaseSettings {
    std::vector<Size> sizes;
    std::uint64_t seed = 0;
    std::string photos_dir;  // empty: no photos
    std::string cache_dir;   // empty: none; else built cases are kept there for the next gradings
    long long max_pixels = 0;  // 0: none; else every case larger is left out, the lab's own too (a simulator's tiny run)
};

// --photos checked before anything runs: a folder that exists, each of its photos
// (labkit::images_in) readable (std::invalid_argument naming the file and why, else). Returns the
// files it leaves out.
std::vector<std::string> check_photos(const std::string& dir);

// The cases of a class are the same for every submission (one seed, the same sizes and photos),
// and building them (the reference on every case, 8192^2 included) cost each grading 1 to 7 s on
// an H100 node. With a cache folder, the first grading keeps its cases and expected outputs in
// <cache_dir>/<exercise>-<hash of key>/, published whole by one rename, and the next ones read
// them back. The key names everything the cases depend on: the exercise, seed, sizes, the photos
// (names, sizes, times) and this grader program (size, time), so a rebuilt reference never
// reuses old outputs. The folder holds expected outputs: it is made for its owner alone (0700),
// and the sandbox never binds it.
// "size:time" of a file, or "-" when it cannot be read: what a cache key holds of a program or photo.
std::string file_identity(const std::filesystem::path& path);
// FNV-1a, 64 bits, in hex: names a cache's slot or file; the key itself is compared on reading.
std::string key_hash(const std::string& key);

struct CacheSlot {
    std::filesystem::path dir;
    std::string key;  // one line, also stored in the slot and compared when it is read
};
CacheSlot cache_slot(std::string_view exercise, const CaseSettings& settings);
// A private folder beside slot.dir to write a slot into, then publish_slot() renames it into
// place. A slot already there (another grading's, which is the same, or one that could not be
// read) is set aside by a rename and removed, so a reader never sees half of either.
std::filesystem::path slot_staging(const CacheSlot& slot);
void publish_slot(const std::filesystem::path& staging, const CacheSlot& slot);

struct PerfSettings {
    std::vector<int> sizes;    // square sizes
    std::vector<std::string> params;  // labels of the contract's perf_params to time; empty: all but on_request
    std::vector<std::string> patterns;  // shared patterns to time on; empty: the contract's perf_patterns
    std::string photo;  // the photo pattern's photo (the first of --photos), when a timed pattern is photo
    std::vector<int> threads;  // OpenMP thread sweep
    // --quick: of each exercise, only the first pattern and the first timed parameters (where
    // patterns and params do not name them): one timing per size, for a student's inner loop.
    bool first_only = false;
    double cpu_max_flops = kCpuPerfMaxFlops;  // CPU timings (the reference's included) whose one call exceeds it are left out
    labkit::RunPolicy policy;
    std::uint64_t seed = 0;
};

// A case's answer judged: pass or fail, with the first mismatch and a diff image. A missing,
// short or malformed answer file is not a wrong answer but a broken runner.
struct Judgement {
    bool pass = false;
    std::string detail;
    std::string diff;
    bool malformed = false;
};

class GraderExercise {
public:
    virtual ~GraderExercise() = default;
    virtual ExerciseInfo info() const = 0;
    // Builds the cases and their expected outputs; writes inputs and a manifest into dir.
    virtual void prepare(const CaseSettings& settings, const std::filesystem::path& dir) = 0;
    virtual std::size_t cases() const = 0;
    // False when case i's parameters are not for this variant (protocol::applies_to): no answer is
    // expected and the case is not counted.
    virtual bool applies(std::size_t i, const std::string& variant) const = 0;
    virtual const std::string& case_name(std::size_t i) const = 0;
    virtual std::pair<int, int> case_size(std::size_t i) const = 0;  // the input's width and height
    // The shared pattern that case i's input was made from; none for the lab's own cases and photos.
    virtual std::optional<labkit::Pattern> case_pattern(std::size_t i) const = 0;
    // Whether case i is one of the lab's own (C::lab_cases: a handout's worked example, an edge
    // its authors chose), the failing case that tells a student most.
    virtual bool lab_case(std::size_t i) const = 0;
    // Whether an emulated GPU variant is checked on case i: one of a shared pattern that
    // patterns_at(..., emulated) leaves out is not (its side is long and its pattern not a large one).
    virtual bool emulated_case(std::size_t i) const = 0;
    virtual std::filesystem::path manifest() const = 0;
    // The expected output's digest (labkit/digest.hpp) where case i may be answered with one: a
    // large output compared exactly. Otherwise none: the answer comes as a file.
    virtual std::optional<std::uint64_t> expected_digest(std::size_t i) const = 0;
    // The wall time, in seconds, that the reference took to compute case i's expected output
    // (kept with the case in the cache): what a runner's deadline for the case is made from.
    virtual double reference_seconds(std::size_t i) const = 0;
    // Reads the runner's answer file for case i and compares it with the reference; a wrong output
    // gets a diff image in diff_dir (none when diff_dir is empty).
    virtual Judgement judge(std::size_t i, const std::filesystem::path& answer, const std::string& diff_dir,
                            const std::string& variant) const = 0;
    virtual std::vector<PerfLine> time_reference(const PerfSettings& settings) const = 0;
    // The output of a timed run (of the runner's `line`, its input made from `seed`) against
    // the reference. checked is false where the reference itself would be too slow at that size
    // (over max_flops a call); problem is "" when the output matches.
    struct TimedCheck {
        bool checked = false;
        std::string problem;
    };
    virtual TimedCheck judge_timed(const PerfLine& line, std::uint64_t seed, const std::filesystem::path& answer,
                                   double max_flops) const = 0;
    // The contract's FLOPs per pixel for a variant on the timed parameters labelled `label` (0: none).
    virtual double flops_per_pixel(const std::string& variant, const std::string& label) const = 0;
    // `run`'s options for the exercise's parameters (--filter, ...), and the parameters they give.
    virtual std::vector<RunOption> run_options() const = 0;
    // `run`: writes the input of one image (a photo) and its manifest into dir; `options` holds the
    // value of each run option by name (missing: its default). Throws std::invalid_argument.
    virtual void prepare_photo(const std::string& image_path, const std::map<std::string, std::string>& options,
                               const std::filesystem::path& dir) = 0;
    // `run`: the picture (and raw values) of the answer, or of the reference when answer is empty;
    // says whether the answer matches the reference, and which files it wrote.
    struct PhotoResult {
        std::string verdict;
        std::vector<std::string> written;  // "what: path"
    };
    virtual PhotoResult finish_photo(const std::filesystem::path& answer, const std::string& output_png,
                                     const std::string& raw_path, int picture_option) const = 0;
    // `contract`: the facts of the contract for an input of width x height and `run`'s options
    // (missing: their defaults), for tools that must not restate them (the benchmarks' peers).
    struct Facts {
        std::string name;
        std::string_view in, out;  // numpy's names of the pixel types
        std::pair<int, int> output_size;
        Comparison comparison;
        std::vector<NamedValues> params;  // the contract's described(params); empty without one
    };
    virtual Facts facts(int width, int height, const std::map<std::string, std::string>& options) const = 0;
};

// numpy's name of a pixel type: what a tool outside the kit allocates the images as.
template <class T>
constexpr std::string_view numpy_name() {
    if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
    else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
    else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
    else if constexpr (std::is_same_v<T, float>) return "float32";
    else static_assert(sizeof(T) == 0, "a pixel type numpy_name does not know");
}

// Writes an image's values: .csv as text, anything else as little-endian binary, row-major,
// no header (numpy.fromfile(path, dtype).reshape(height, width)).
void write_values_file(const std::string& path, const void* data, std::size_t elem_size, int width, int height,
                       const std::function<std::string(std::size_t)>& value_text);

template <class C>
class ExerciseOf final : public GraderExercise {
    static_assert(Contract<C>, "a lab's contract lacks a member of protocol::Contract (grader/protocol/exercise.hpp lists them)");

public:
    using In = typename C::In;
    using Out = typename C::Out;
    using Params = typename C::Params;

    ExerciseInfo info() const override {
        ExerciseInfo i{std::string(C::name), std::string(C::reference_name), C::min_bytes_per_pixel, {}, {}, {}, {}, {}};
        for (const Stage& s : C::stages) i.stages.push_back({std::string(s.name), s.bytes_per_pixel});
        i.perf_patterns.clear();
        for (const labkit::Pattern p : perf_patterns_of<C>()) i.perf_patterns.emplace_back(labkit::pattern_name(p));
        i.perf_params.clear();
        for (const auto& p : perf_params_of<C>()) {
            i.perf_params.push_back(p.label);
            if (!p.on_request) i.default_perf_params.push_back(p.label);
        }
        for (const PerfView& v : perf_views_of<C>())
            i.views.push_back({std::string(v.title), std::string(v.glob), std::string(v.versus)});
        return i;
    }

    void prepare(const CaseSettings& settings, const std::filesystem::path& dir) override {
        cases_.clear();
        std::filesystem::create_directories(dir);
        const auto slot = settings.cache_dir.empty() ? std::optional<CacheSlot>{} : cache_slot(C::name, settings);
        if (!slot || !load_cases(*slot)) {
            build_cases(settings);
            if (slot) save_cases(*slot);  // over a slot that could not be read, too
        }
        write_inputs(dir);
    }

    std::size_t cases() const override { return cases_.size(); }
    bool applies(std::size_t i, const std::string& variant) const override {
        return applies_to<C>(variant, cases_.at(i).params);
    }
    const std::string& case_name(std::size_t i) const override { return cases_.at(i).name; }
    std::pair<int, int> case_size(std::size_t i) const override {
        return {cases_.at(i).input.width(), cases_.at(i).input.height()};
    }
    std::optional<labkit::Pattern> case_pattern(std::size_t i) const override { return cases_.at(i).pattern; }
    bool lab_case(std::size_t i) const override {
        return !cases_.at(i).pattern && !cases_.at(i).name.starts_with(kPhotoCasePrefix);
    }
    bool emulated_case(std::size_t i) const override {
        const auto& c = cases_.at(i);
        if (!c.pattern) return true;  // a lab case or a photo
        const auto kept = patterns_at<C>(c.input.width(), c.input.height(), true);
        return std::find(kept.begin(), kept.end(), *c.pattern) != kept.end();
    }
    std::filesystem::path manifest() const override { return manifest_; }
    std::optional<std::uint64_t> expected_digest(std::size_t i) const override { return cases_.at(i).digest; }
    double reference_seconds(std::size_t i) const override { return cases_.at(i).reference_s; }

    Judgement judge(std::size_t i, const std::filesystem::path& answer, const std::string& diff_dir,
                    const std::string& variant) const override {
        const Case& c = cases_.at(i);
        labkit::HostImage<Out> got;
        try {
            got = read_raw<Out>(answer);
        } catch (const std::exception& e) {
            return {false, e.what(), "", true};
        }
        if (got.width() != c.want.width() || got.height() != c.want.height())
            return {false,
                    "the answer is " + size_name({got.width(), got.height()}) + ", want " +
                        size_name({c.want.width(), c.want.height()}),
                    "", true};
        const auto comparison = comparison_of<C>(c.params);
        const auto m = compare<Out>(got.view(), c.want.view(), comparison);
        Judgement j{m.ok(), describe(m, got.pixels(), comparison), ""};
        if (!m.ok() && !diff_dir.empty()) {
            std::filesystem::create_directories(diff_dir);
            j.diff = diff_dir + "/" + safe_file_name(variant + "_" + c.name) + ".png";
            const Window w = diff_window(c.want.width(), c.want.height(), m.x, m.y);
            write_diff_png<Out>(j.diff, background(c, w).view(), crop(got.view(), w), crop(c.want.view(), w), comparison);
            if (const auto shown = describe_window(w, c.want.width(), c.want.height()); !shown.empty())
                j.detail += "; the diff image shows " + shown + ", around the first mismatch";
        }
        return j;
    }

    static std::vector<labkit::Pattern> patterns_to_time(const PerfSettings& settings) {
        std::vector<labkit::Pattern> out;
        if (settings.patterns.empty()) {
            for (const labkit::Pattern p : perf_patterns_of<C>()) out.push_back(p);
            if (settings.first_only && out.size() > 1) out.resize(1);
        } else {
            for (const auto& name : settings.patterns)
                if (const auto p = labkit::parse_pattern(name)) out.push_back(*p);
        }
        return out;
    }

    std::vector<PerfLine> time_reference(const PerfSettings& settings) const override {
        std::vector<PerfLine> lines;
        bool timed_params = false;
        for (const auto& [label, params, on_request] : perf_params_of<C>()) {
            if (settings.params.empty() ? on_request || (settings.first_only && timed_params)
                                        : std::find(settings.params.begin(), settings.params.end(), label) ==
                                              settings.params.end())
                continue;
            timed_params = true;
            for (const labkit::Pattern pattern : patterns_to_time(settings))
                for (const int n : settings.sizes)
                    if (!too_slow_for_cpu_timing<C>(C::reference_name, params, n, settings.cpu_max_flops))
                        lines.push_back(time_one_reference(label, params, pattern, n, settings));
        }
        return lines;
    }

    TimedCheck judge_timed(const PerfLine& line, std::uint64_t seed, const std::filesystem::path& answer,
                           double max_flops) const override {
        const auto pattern = labkit::parse_pattern(line.pattern);
        const auto all = perf_params_of<C>();
        const auto it = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.label == line.params; });
        if (!pattern || it == all.end()) return {true, "a timing line names no timed image of this lab"};
        if (too_slow_for_cpu_timing<C>(C::reference_name, it->params, line.width, max_flops)) return {false, ""};
        labkit::HostImage<Out> got;
        try {
            got = read_raw<Out>(answer);
        } catch (const std::exception& e) {
            return {true, "no output of the timed run: " + std::string(e.what())};
        }
        const auto input = C::make_input(*pattern, line.width, line.height, seed);
        const auto [w, h] = C::output_size(line.width, line.height, it->params);
        labkit::HostImage<Out> want(w, h);
        C::reference(input.view(), want.view(), it->params);
        if (got.width() != w || got.height() != h)
            return {true, "the timed run's output is " + size_name({got.width(), got.height()}) + ", want " +
                              size_name({w, h})};
        const auto comparison = comparison_of<C>(it->params);
        const auto m = compare<Out>(got.view(), want.view(), comparison);
        if (m.ok()) return {true, ""};
        return {true, "the output of a timed run at " + size_name({line.width, line.height}) + " is wrong: " +
                          describe(m, got.pixels(), comparison)};
    }

    double flops_per_pixel(const std::string& variant, const std::string& label) const override {
        for (const auto& p : perf_params_of<C>())
            if (p.label == label) return flops_per_pixel_of<C>(variant, p.params);
        return 0;
    }

    std::vector<RunOption> run_options() const override {
        if constexpr (requires { C::run_options; })
            return {std::begin(C::run_options), std::end(C::run_options)};
        else
            return {};
    }

    // The Params of `run`'s options (missing: their defaults); throws std::invalid_argument.
    static Params params_of(const std::map<std::string, std::string>& options) {
        if constexpr (requires { C::run_options; }) {
            std::vector<std::string> values;
            for (const RunOption& o : C::run_options) {
                const auto it = options.find(std::string(o.name));
                values.push_back(it == options.end() ? std::string(o.default_value) : it->second);
            }
            return C::params_from_options(values);
        } else {
            return default_params_of<C>();
        }
    }

    Facts facts(int width, int height, const std::map<std::string, std::string>& options) const override {
        const Params params = params_of(options);
        Facts f{std::string(C::name), numpy_name<In>(), numpy_name<Out>(), C::output_size(width, height, params),
                comparison_of<C>(params), {}};
        if constexpr (requires { C::described(params); }) f.params = C::described(params);
        return f;
    }

    void prepare_photo(const std::string& image_path, const std::map<std::string, std::string>& options,
                       const std::filesystem::path& dir) override {
        Params params = params_of(options);
        photo_ = image_path;
        cases_.clear();
        std::filesystem::create_directories(dir);
        add("photo", C::from_photo(labkit::load_gray(image_path)), std::move(params));
        write_inputs(dir);
    }

    PhotoResult finish_photo(const std::filesystem::path& answer, const std::string& output_png,
                             const std::string& raw_path, int picture_option) const override {
        const Case& c = cases_.at(0);
        labkit::HostImage<Out> out = answer.empty() ? c.want : read_raw<Out>(answer);
        PhotoResult result{"the reference itself", {}};
        if (!answer.empty()) {
            if (out.width() != c.want.width() || out.height() != c.want.height())
                throw std::runtime_error("the answer is " + size_name({out.width(), out.height()}) + ", want " +
                                         size_name({c.want.width(), c.want.height()}));
            const auto comparison = comparison_of<C>(c.params);
            const auto m = compare<Out>(out.view(), c.want.view(), comparison);
            result.verdict = m.ok() ? "matches the reference" : "DIFFERS from the reference: " + describe(m, out.pixels(), comparison);
        }
        const auto picture = C::picture(c.input.view(), out.view(), picture_option);
        if constexpr (luma_of_colour<C>()) {
            // The output is the photo with the answer as its luma; the picture goes beside it.
            static_assert(std::is_same_v<Out, std::uint8_t>, "luma_of_colour: the output is an 8-bit luma");
            const auto photo = labkit::load_rgb(photo_);
            if (photo.colour) {
                const auto colour = labkit::with_luma(photo, out.view());
                labkit::save_png_rgb(output_png, colour.rgb.data(), colour.width, colour.height);
            } else {
                labkit::save_png(output_png, out.view());
            }
            result.written.push_back(std::string(photo.colour ? "the result in colour (chroma kept)" : "the result") +
                                     ": " + output_png);
            const auto stem = std::filesystem::path(output_png).replace_extension().string();
            const std::string picture_png = stem + "-" + std::string(C::picture_name) + ".png";
            labkit::save_png(picture_png, picture.view());
            result.written.push_back(std::string(C::picture_what) + ": " + picture_png);
        } else {
            labkit::save_png(output_png, picture.view());
            result.written.push_back("the picture: " + output_png);
        }
        if (!raw_path.empty()) {
            write_values_file(raw_path, out.data(), sizeof(Out), out.width(), out.height(),
                              [&](std::size_t k) { return format_value(static_cast<double>(out.data()[k])); });
            result.written.push_back("raw values: " + raw_path);
        }
        return result;
    }

private:
    PerfLine time_one_reference(const std::string& label, const Params& params, labkit::Pattern pattern, int n,
                                const PerfSettings& settings) const {
        const auto input = C::make_input(pattern, n, n, settings.seed);
        const auto [w, h] = C::output_size(n, n, params);
        labkit::HostImage<Out> out(w, h);
        constexpr int kOneThread = 1;  // the sequential baseline
        PerfLine line = time_cpu_call([&] { C::reference(input.view(), out.view(), params); }, n, n, kOneThread,
                                      settings.policy);
        line.pattern = labkit::pattern_name(pattern);
        line.params = label;
        return line;
    }

    struct Case {
        std::string name;
        labkit::HostImage<In> input;
        Params params;
        labkit::HostImage<Out> want;
        std::optional<std::uint64_t> digest;  // where a digest may stand for the answer file
        std::optional<labkit::Pattern> pattern;  // the shared pattern of the input; none: a lab case or a photo
        double reference_s = 0;  // the reference's wall time on it
    };

    // The digest that may stand for the answer file: large outputs compared exactly.
    static std::optional<std::uint64_t> digest_of(const labkit::HostImage<Out>& want, const Params& params) {
        const int w = want.width(), h = want.height();
        if (!comparison_of<C>(params).is_exact() || static_cast<long long>(w) * h <= kLargeCasePixels) return {};
        return labkit::host_digest(want.data(), sizeof(Out), w, h, static_cast<std::size_t>(w));
    }

    void add(std::string name, labkit::HostImage<In> input, Params params,
             std::optional<labkit::Pattern> pattern = std::nullopt) {
        if (max_pixels_ > 0 && static_cast<long long>(input.width()) * input.height() > max_pixels_) return;
        const auto [w, h] = C::output_size(input.width(), input.height(), params);
        labkit::HostImage<Out> want(w, h);
        using Clock = std::chrono::steady_clock;
        const auto start = Clock::now();
        C::reference(input.view(), want.view(), params);
        const double reference_s = std::chrono::duration<double>(Clock::now() - start).count();
        auto digest = digest_of(want, params);
        cases_.push_back({std::move(name), std::move(input), std::move(params), std::move(want), digest, pattern, reference_s});
    }

    void build_cases(const CaseSettings& settings) {
        max_pixels_ = settings.max_pixels;
        for (const Size& size : settings.sizes)
            for (const labkit::Pattern p : patterns_at<C>(size.first, size.second))
                add(size_name(size) + " " + std::string(labkit::pattern_name(p)),
                    C::make_input(p, size.first, size.second, settings.seed), default_params_of<C>(), p);
        if constexpr (requires { C::lab_cases(settings.seed); })
            for (auto& c : C::lab_cases(settings.seed)) add(std::move(c.name), std::move(c.input), c.params);
        if (C::uses_photos && !settings.photos_dir.empty())
            for (const auto& f : labkit::images_in(settings.photos_dir))
                add(std::string(kPhotoCasePrefix) + f.filename().string(), C::from_photo(labkit::load_gray(f.string())), default_params_of<C>());
    }

    // The cases of a published cache slot: false (and no case) when it is missing, has another
    // key, or cannot be read whole.
    bool load_cases(const CacheSlot& slot) {
        std::ifstream index(slot.dir / "cases.tsv");
        std::string key;
        if (!index || !std::getline(index, key) || key != slot.key) return false;
        try {
            for (std::string line; std::getline(index, line);) {
                auto f = split_tabs(line);
                // name, params, pattern, the reference's seconds; any other layout is built again
                if (f.size() != 4) throw std::runtime_error("a cases.tsv line of another layout");
                const auto i = std::to_string(cases_.size());
                auto input = read_raw<In>(slot.dir / ("input-" + i + ".raw"));
                auto want = read_raw<Out>(slot.dir / ("want-" + i + ".raw"));
                auto params = C::parse_params(f[1]);
                auto digest = digest_of(want, params);
                cases_.push_back({f[0], std::move(input), std::move(params), std::move(want), digest,
                                  labkit::parse_pattern(f[2]), std::stod(f[3])});
            }
        } catch (const std::exception&) {
            cases_.clear();
        }
        return !cases_.empty();
    }

    // Keeps the cases in the cache (best effort: a grading never fails for its cache).
    void save_cases(const CacheSlot& slot) const {
        std::filesystem::path staging;
        try {
            staging = slot_staging(slot);
            std::ofstream index(staging / "cases.tsv");
            index << slot.key << '\n';
            for (std::size_t i = 0; i < cases_.size(); ++i) {
                const Case& c = cases_[i];
                if (c.name.find_first_of("\t\n") != std::string::npos)
                    throw std::runtime_error("a case name holds a tab or a line break: " + c.name);
                write_raw<In>(staging / ("input-" + std::to_string(i) + ".raw"), c.input.view());
                write_raw<Out>(staging / ("want-" + std::to_string(i) + ".raw"), c.want.view());
                char seconds[32];  // every digit: a deadline made from a cached case is the one made from a built case
                std::snprintf(seconds, sizeof seconds, "%.17g", c.reference_s);
                index << c.name << '\t' << C::params_text(c.params) << '\t'
                      << (c.pattern ? labkit::pattern_name(*c.pattern) : "-") << '\t' << seconds << '\n';
            }
            index.close();
            if (!index) throw std::runtime_error("cannot write " + (staging / "cases.tsv").string());
            publish_slot(staging, slot);
        } catch (const std::exception& e) {
            std::error_code ec;
            if (!staging.empty()) std::filesystem::remove_all(staging, ec);
            std::fprintf(stderr, "note: the cases were not cached (%s)\n", e.what());
        }
    }

    void write_inputs(const std::filesystem::path& dir) {
        std::vector<ManifestEntry> entries;
        for (std::size_t i = 0; i < cases_.size(); ++i) {
            const auto path = dir / ("input-" + std::to_string(i) + ".raw");
            write_raw<In>(path, cases_[i].input.view());
            entries.push_back({path.string(), C::params_text(cases_[i].params)});
        }
        manifest_ = dir / "manifest.tsv";
        write_manifest(manifest_, entries);
    }

    // The diff image's background in its window w (of the output): the lab's picture of the case,
    // else the expected output, normalized over the window. Only the window is drawn, so that a
    // large case costs no second pass over the whole image. The lab's picture is of the input,
    // which has the output's size in every lab that draws one; where it has not, the window would
    // miss it.
    static labkit::GrayImage background(const Case& c, Window w) {
        if constexpr (requires { C::diff_background(c.input.view(), c.want.view()); })
            if (c.input.width() == c.want.width() && c.input.height() == c.want.height())
                return C::diff_background(crop(c.input.view(), w), crop(c.want.view(), w));
        return normalized_gray<Out>(crop(c.want.view(), w));
    }

    static std::string safe_file_name(std::string s) {
        for (char& ch : s)
            if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '.') ch = '_';
        return s;
    }

    long long max_pixels_ = 0;  // CaseSettings::max_pixels of the cases being built
    std::vector<Case> cases_;
    std::filesystem::path manifest_;
    std::string photo_;  // `run`: the photo (for its colour)
};

}  // namespace grader
