#include "report.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "labkit/generators.hpp"
#include "labkit/table.hpp"
#include "labkit/timing.hpp"

namespace grader {
using namespace protocol;
namespace {

using labkit::format_fixed;
using labkit::Table;
using Json = nlohmann::ordered_json;

constexpr std::size_t kColumnsPerTable = 6;  // variant columns per table: ~200 characters wide

std::string ratio(double x) { return x >= 100 ? format_fixed(x, 0) : x >= 10 ? format_fixed(x, 1) : format_fixed(x, 2); }
std::string ms(double x) { return x >= 100 ? format_fixed(x, 1) : x >= 1 ? format_fixed(x, 3) : format_fixed(x, 4); }
std::string size_label(int w, int h) { return w == h ? std::to_string(w) + "²" : std::to_string(w) + "x" + std::to_string(h); }

// The time a table shows for a variant at a size: GPU kernel time; CPU time at the best thread count.
using BestTimes = std::map<std::string, std::map<int, double>>;

BestTimes best_times(const Report& r, const std::string& exercise) {
    BestTimes best;
    for (const auto& p : r.perf) {
        if (p.exercise != exercise) continue;
        auto [it, fresh] = best[p.variant].try_emplace(p.line.width, p.line.ms);
        if (!fresh) it->second = std::min(it->second, p.line.ms);
    }
    return best;
}

std::optional<double> lookup(const BestTimes& best, const std::string& v, int n) {
    const auto it = best.find(v);
    if (it == best.end()) return std::nullopt;
    const auto jt = it->second.find(n);
    if (jt == it->second.end()) return std::nullopt;
    return jt->second;
}

// Timed variants of an exercise in table order (the reference first), and their kinds.
std::vector<std::string> timed_order(const Report& r, const std::string& exercise, const std::string& kind = "") {
    std::vector<std::string> names;
    for (const auto& p : r.perf)
        if (p.exercise == exercise && (kind.empty() || p.kind == kind) &&
            std::find(names.begin(), names.end(), p.variant) == names.end())
            names.push_back(p.variant);
    return names;
}

std::vector<int> perf_sizes(const Report& r) {
    std::vector<int> sizes;
    for (const auto& p : r.perf)
        if (std::find(sizes.begin(), sizes.end(), p.line.width) == sizes.end()) sizes.push_back(p.line.width);
    std::sort(sizes.begin(), sizes.end());
    return sizes;
}

double gbps(double bytes, double time_ms) { return time_ms > 0 ? bytes / (time_ms * 1e-3) / 1e9 : 0; }
double pct_of_copy(const Report& r, double bytes, double time_ms) {
    return r.device.copy_gbps > 0 ? 100.0 * gbps(bytes, time_ms) / r.device.copy_gbps : 0;
}
double stage_bytes(const ExerciseInfo& e) {
    double sum = 0;
    for (const auto& s : e.stages) sum += s.bytes_per_pixel;
    return sum;
}
std::string bpp(double bytes) { return format_fixed(bytes, bytes == static_cast<int>(bytes) ? 0 : 1) + " B/px"; }

// rows = resolution, columns = variants, in chunks that fit a terminal.
std::vector<Table> grid(const std::string& title, const std::vector<std::string>& names, const std::vector<int>& sizes,
                        const std::function<std::string(const std::string&, int)>& cell) {
    std::vector<Table> tables;
    const std::size_t parts = (names.size() + kColumnsPerTable - 1) / kColumnsPerTable;
    for (std::size_t start = 0; start < names.size(); start += kColumnsPerTable) {
        const std::size_t end = std::min(names.size(), start + kColumnsPerTable);
        std::vector<std::string> headers{"resolution"};
        headers.insert(headers.end(), names.begin() + start, names.begin() + end);
        const std::string part =
            parts > 1 ? " (" + std::to_string(start / kColumnsPerTable + 1) + "/" + std::to_string(parts) + ")" : "";
        Table t(title + part, headers);
        for (int n : sizes) {
            std::vector<std::string> row{size_label(n, n)};
            for (std::size_t i = start; i < end; ++i) row.push_back(cell(names[i], n));
            t.add_row(row);
        }
        tables.push_back(std::move(t));
    }
    return tables;
}

std::vector<Table> correctness_tables(const Report& r) {
    Table t("Correctness — " + r.lab + " (" + r.label + "), seed " + std::to_string(r.seed),
            {"variant", "exercise", "kind", "verdict", "cases", "detail"});
    for (const auto& res : r.results)
        t.add_row({res.name, res.exercise, res.kind, std::string(status_label(res.status)),
                   res.cases_total && res.status != Status::todo
                       ? std::to_string(res.cases_passed) + "/" + std::to_string(res.cases_total)
                       : "—",
                   res.detail});
    return {t};
}

// Every failing case of each variant that fails one, with its detail: the terminal lists the
// first few (print_correctness), the Markdown report all of them.
std::vector<Table> failing_case_tables(const Report& r) {
    std::vector<Table> tables;
    for (const auto& res : r.results) {
        if (res.cases_failed == 0) continue;
        Table t("Failing cases — " + res.name + ": " + std::to_string(res.cases_failed) + " of " +
                    std::to_string(res.cases_total),
                {"case", "verdict", "detail", "diff image"});
        for (const auto& c : res.cases)
            if (c.status != Status::pass) t.add_row({c.name, std::string(status_label(c.status)), c.detail, c.diff});
        tables.push_back(std::move(t));
    }
    return tables;
}

// The view's variants named by what follows their common prefix ("gpu-03-agg-ks-b256" -> "ks-b256").
std::vector<std::string> short_names(const std::vector<std::string>& names) {
    if (names.size() < 2) return names;
    std::size_t common = 0;
    const std::string& first = names.front();
    while (common < first.size() && std::all_of(names.begin(), names.end(), [&](const std::string& n) {
               return common < n.size() && n[common] == first[common];
           }))
        ++common;
    const std::size_t cut = first.rfind('-', common == 0 ? 0 : common - 1);
    std::vector<std::string> out;
    for (const auto& n : names) out.push_back(cut == std::string::npos ? n : n.substr(cut + 1));
    return out;
}

// A lab's view: the matching variants side by side, "ms (×speedup)" in each cell.
std::vector<Table> view_tables(const Report& r, const ExerciseInfo& e, const ViewInfo& view, const std::string& who) {
    const auto best = best_times(r, e.name);
    std::vector<std::string> names;
    for (const auto& v : timed_order(r, e.name))
        if (::fnmatch(view.glob.c_str(), v.c_str(), 0) == 0) names.push_back(v);
    if (names.empty()) return {};
    const auto labels = short_names(names);
    const std::string versus = view.versus.empty() ? e.reference_name : view.versus;
    return grid(view.title + ": ms (× vs " + versus + ")" + who, labels, perf_sizes(r), [&](const std::string& label, int n) {
        const auto& v = names[std::find(labels.begin(), labels.end(), label) - labels.begin()];
        const auto t = lookup(best, v, n), b = lookup(best, versus, n);
        if (!t) return std::string("—");
        return ms(*t) + (b ? " (" + ratio(*b / *t) + "×)" : "");
    });
}

std::vector<Table> exercise_tables(const Report& r, const ExerciseInfo& e, const std::string& on) {
    std::vector<Table> tables;
    const auto best = best_times(r, e.name);
    const auto sizes = perf_sizes(r);
    const auto names = timed_order(r, e.name);
    if (names.empty()) return tables;
    const auto gpu = timed_order(r, e.name, "gpu");
    const auto cpu = timed_order(r, e.name, "cpu");
    const std::string first_gpu = gpu.empty() ? "" : gpu.front();
    const std::string who = " — " + r.lab + ": " + e.name + on + " (" + r.label + ")";
    auto add = [&](std::vector<Table> ts) { tables.insert(tables.end(), ts.begin(), ts.end()); };
    auto speedup = [&](const std::string& base) {
        return [&, base](const std::string& v, int n) {
            const auto t = lookup(best, v, n), b = lookup(best, base, n);
            return t && b ? ratio(*b / *t) : std::string("—");
        };
    };

    // A lab that counts FLOPs leaves out the CPU calls over the cap: say so, or a missing column reads as a bug.
    const bool capped = std::any_of(r.perf.begin(), r.perf.end(), [](const PerfPoint& p) {
        return p.kind == "cpu" && p.flops_per_pixel > 0;
    });
    char cap[96] = "";
    if (capped) std::snprintf(cap, sizeof cap, "; CPU calls over %g GFLOP not timed (--cpu-max-gflop)", r.cpu_max_gflop);
    add(grid("Time, ms (GPU: kernels only; CPU: best thread count" + std::string(cap) + ")" + who, names, sizes, [&](const std::string& v, int n) {
        const auto t = lookup(best, v, n);
        return t ? ms(*t) : std::string("—");
    }));
    if (best.count(e.reference_name)) add(grid("Speedup vs " + e.reference_name + who, names, sizes, speedup(e.reference_name)));
    if (gpu.size() > 1) add(grid("Speedup vs " + first_gpu + " (same run)" + who, gpu, sizes, speedup(first_gpu)));

    // Thread sweeps of the CPU variants that ran with several thread counts.
    for (const auto& v : cpu) {
        std::vector<int> threads;
        for (const auto& p : r.perf)
            if (p.variant == v && std::find(threads.begin(), threads.end(), p.line.threads) == threads.end())
                threads.push_back(p.line.threads);
        if (threads.size() < 2) continue;
        std::sort(threads.begin(), threads.end());
        std::vector<std::string> headers{"resolution"};
        for (int t : threads) headers.push_back(std::to_string(t) + (t == 1 ? " thread" : " threads"));
        Table t(v + " thread sweep, ms (" + r.host.cpu_model + ")" + who, headers);
        for (int n : sizes) {
            std::vector<std::string> row{size_label(n, n)};
            for (int th : threads) {
                const auto it = std::find_if(r.perf.begin(), r.perf.end(), [&](const PerfPoint& p) {
                    return p.variant == v && p.line.width == n && p.line.threads == th;
                });
                row.push_back(it == r.perf.end() ? "—" : ms(it->line.ms));
            }
            t.add_row(row);
        }
        tables.push_back(t);
    }

    // GPU detail at every size: bandwidth on the floor and on the stages' traffic, each stage,
    // and the ratios to every CPU variant and to the first GPU variant.
    const double pipeline_bytes = stage_bytes(e);
    std::string legend;  // which pass is which
    for (std::size_t i = 0; i < e.stages.size() && e.stages.size() > 1; ++i)
        legend += std::string(i ? ", " : "; passes: ") + std::to_string(i + 1) + " " + e.stages[i].name + " (" +
                  bpp(e.stages[i].bytes_per_pixel) + ")";
    for (int n : sizes) {
        const double pixels = static_cast<double>(n) * n;
        // "first call": the runner process's first call of the variant, its module load (and the
        // Python track's compiling and JIT) included; the same for every size.
        std::vector<std::string> headers{"variant", "kernel ms", "e2e ms", "first call ms", "GB/s @" + bpp(e.min_bytes_per_pixel),
                                         "% copy"};
        // The stages' traffic gets its own columns only when it is more than the floor.
        const bool pipeline_columns = pipeline_bytes > e.min_bytes_per_pixel;
        if (e.stages.size() > 1) {
            if (pipeline_columns) headers.insert(headers.end(), {"GB/s @" + bpp(pipeline_bytes), "% copy"});
            // A stage that moves no per-pixel bytes (a scan of 256 bins) shows its time instead.
            for (std::size_t i = 0; i < e.stages.size(); ++i)
                headers.push_back("pass " + std::to_string(i + 1) + (e.stages[i].bytes_per_pixel > 0 ? " %" : " µs"));
        }
        // Arithmetic against the measured FP32 FMA rate, where the lab states its FLOPs.
        const bool flop_columns = std::any_of(r.perf.begin(), r.perf.end(), [](const PerfPoint& p) { return p.flops_per_pixel > 0; });
        if (flop_columns) headers.insert(headers.end(), {"GFLOP/s", "% FP32 peak"});
        for (const auto& c : cpu) headers.push_back("× " + c);
        if (gpu.size() > 1) headers.push_back("× " + first_gpu);
        const std::string peak = flop_columns ? ", % of measured FP32 FMA rate (" + format_fixed(r.device.fma_gflops, 0) + " GFLOP/s)" : "";
        Table t("GPU detail at " + size_label(n, n) + ": % of measured copy bandwidth (" +
                    format_fixed(r.device.copy_gbps, 0) + " GB/s)" + peak + who + legend,
                headers);
        for (const auto& p : r.perf) {
            if (p.exercise != e.name || p.kind != "gpu" || p.line.width != n) continue;
            std::vector<std::string> row{p.variant, ms(p.line.ms), ms(p.line.e2e_ms), ms(p.line.first_ms),
                                         format_fixed(gbps(e.min_bytes_per_pixel * pixels, p.line.ms), 0),
                                         format_fixed(pct_of_copy(r, e.min_bytes_per_pixel * pixels, p.line.ms), 1)};
            if (e.stages.size() > 1) {
                // Only a variant that reports the pipeline's stages moves the pipeline's bytes
                // (Lab 1's expert tier does it its own way: its traffic is unknown here).
                const bool staged = p.line.stage_ms.size() == e.stages.size();
                if (pipeline_columns) {
                    row.push_back(staged ? format_fixed(gbps(pipeline_bytes * pixels, p.line.ms), 0) : "—");
                    row.push_back(staged ? format_fixed(pct_of_copy(r, pipeline_bytes * pixels, p.line.ms), 1) : "—");
                }
                constexpr double kMicrosPerMs = 1000;
                for (std::size_t i = 0; i < e.stages.size(); ++i)
                    row.push_back(i >= p.line.stage_ms.size() ? "—"
                                  : e.stages[i].bytes_per_pixel > 0
                                      ? format_fixed(pct_of_copy(r, e.stages[i].bytes_per_pixel * pixels, p.line.stage_ms[i]), 1)
                                      : format_fixed(p.line.stage_ms[i] * kMicrosPerMs, 1));
            }
            if (flop_columns) {
                const double gflops = p.flops_per_pixel * pixels / (p.line.ms * 1e-3) / 1e9;
                row.push_back(format_fixed(gflops, 0));
                row.push_back(r.device.fma_gflops > 0 ? format_fixed(100.0 * gflops / r.device.fma_gflops, 1) : "—");
            }
            for (const auto& c : cpu) row.push_back(speedup(c)(p.variant, n) == "—" ? "—" : ratio(*lookup(best, c, n) / p.line.ms));
            if (gpu.size() > 1) row.push_back(speedup(first_gpu)(p.variant, n));
            t.add_row(row);
        }
        if (!t.empty()) tables.push_back(t);
    }
    return tables;
}

// Each exercise's tables once per timed pattern and timed parameters, then its views. A title names
// the pattern when there are several, or when it is not the usual noise (--perf-patterns full).
constexpr std::string_view kDefaultPattern = "random";
std::vector<Table> performance_tables(const Report& r) {
    std::vector<Table> tables;
    auto add = [&](const std::vector<Table>& ts) { tables.insert(tables.end(), ts.begin(), ts.end()); };
    for (const auto& e : r.exercises) {
        for (const auto& params : e.perf_params)
            for (const auto& pattern : e.perf_patterns) {
                Report one = r;
                one.perf.clear();
                for (const auto& p : r.perf)
                    if (p.exercise == e.name && p.line.pattern == pattern && p.line.params == params) one.perf.push_back(p);
                if (one.perf.empty()) continue;
                const std::string on = (params.empty() ? "" : ", " + params) +
                                       (e.perf_patterns.size() > 1 || pattern != kDefaultPattern ? ", " + pattern + " images" : "") +
                                       (pattern == labkit::pattern_name(labkit::Pattern::photo) && !r.timing_photo.empty()
                                            ? " (" + r.timing_photo + ", mirrored)"
                                            : "");
                add(exercise_tables(one, e, on));
                for (const auto& view : e.views) add(view_tables(one, e, view, " — " + r.lab + on + " (" + r.label + ")"));
            }
    }
    return tables;
}

// What a pass of an emulated GPU variant does not say, wherever the reports show one.
constexpr const char* kEmulationCaveat =
    "GPU variants emulated on the CPU (HIP-CPU): their outputs were checked with a block's threads in order, and "
    "on the small noise and lab cases reversed and shuffled too, but emulation cannot show their speed (not timed), real races "
    "between blocks, the GPU memory model's effects (missing fences, stale caches) or an asynchronous copy read "
    "before its wait: 'pass (emulated)' is not a GPU pass; check them on a GPU";

Json environment_json(const Report& r) {
    return {{"gpu", r.device.available ? Json(r.device.name) : Json(nullptr)},
            {"gpu_unavailable_reason", r.device.unavailable_reason},
            {"gpu_emulated", r.emulated ? Json(kEmulationCaveat) : Json(nullptr)},
            {"sms", r.device.sms},
            {"compute_capability", std::to_string(r.device.cc_major) + "." + std::to_string(r.device.cc_minor)},
            {"gpu_memory_gib", r.device.memory_gib},
            {"driver", r.device.driver_version},
            {"cuda", r.device.runtime_version},
            {"copy_gbps", r.device.copy_gbps},
            {"fma_gflops", r.device.fma_gflops},
            {"cpu", r.host.cpu_model},
            {"threads", r.host.threads},
            {"date", r.host.date}};
}

// Written beside the target and renamed over it: a reader sees the old file or the new one,
// never half of one (a grader killed mid-write, a class run read while it runs).
void write_text(const std::string& path, const std::string& text) {
    const std::string partial = path + ".partial";
    {
        std::ofstream out(partial);
        out << text;
        if (!out.flush()) throw std::runtime_error("cannot write '" + partial + "'");
    }
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) throw std::runtime_error("cannot write '" + path + "': " + ec.message());
}

// The variants whose timings were flagged, and why: never left unsaid where timings are shown.
std::string flags_text(const Report& r) {
    std::string text;
    for (const auto& res : r.results)
        for (const auto& f : res.flags) text += "- " + res.name + ": timings flagged for review and left out: " + f + "\n";
    for (const auto& res : r.results)
        for (const auto& n : res.notes) text += "- " + res.name + ": note on its timings: " + n + "\n";
    return text.empty() ? "" : text + "\n";
}

const ExerciseInfo* exercise_of(const Report& r, const std::string& name) {
    for (const auto& e : r.exercises)
        if (e.name == name) return &e;
    return nullptr;
}

std::string environment_text(const Report& r) {
    std::string text = r.device.available ? "GPU: " + r.device.name + ", " + std::to_string(r.device.sms) + " SMs, driver " +
                                                r.device.driver_version + ", CUDA " + r.device.runtime_version +
                                                ", device copy " + format_fixed(r.device.copy_gbps, 0) + " GB/s, FP32 FMA " +
                                                format_fixed(r.device.fma_gflops, 0) + " GFLOP/s  \n"
                                          : "GPU: none (" + r.device.unavailable_reason + ")  \n";
    if (r.emulated) text += std::string(kEmulationCaveat) + "  \n";
    return text + "CPU: " + r.host.cpu_model + ", " + std::to_string(r.host.threads) + " threads  \nDate: " + r.host.date +
           ", seed " + std::to_string(r.seed) + "  \nStudent code: " + r.sandbox + "\n\n" + flags_text(r);
}

std::string markdown(const Report& r) {
    std::string text = "# " + r.lab + " (" + r.label + ")\n\n" + environment_text(r);
    for (const auto& t : correctness_tables(r)) text += t.markdown() + "\n";
    for (const auto& t : failing_case_tables(r)) text += t.markdown() + "\n";
    for (const auto& t : performance_tables(r)) text += t.markdown() + "\n";
    return text;
}

std::string csv(const Report& r) {
    std::size_t stages = 0;
    for (const auto& e : r.exercises) stages = std::max(stages, e.stages.size());
    std::vector<std::string> headers{"lab", "label", "exercise", "variant", "kind", "pattern", "params", "width", "height", "threads",
                                     "ms_median", "ms_min", "ms_max", "runs", "e2e_ms", "first_call_ms"};
    for (std::size_t i = 0; i < stages; ++i) headers.push_back("pass" + std::to_string(i + 1) + "_ms");
    headers.insert(headers.end(), {"gpu", "copy_gbps", "date"});
    Table t("timings", headers);
    for (const auto& p : r.perf) {
        const auto& l = p.line;
        std::vector<std::string> row{r.lab, r.label, p.exercise, p.variant, p.kind, l.pattern, l.params, std::to_string(l.width),
                                     std::to_string(l.height), std::to_string(l.threads), format_fixed(l.ms, 5),
                                     format_fixed(l.min_ms, 5), format_fixed(l.max_ms, 5), std::to_string(l.runs),
                                     format_fixed(l.e2e_ms, 5), p.kind == "gpu" ? format_fixed(l.first_ms, 3) : ""};
        for (std::size_t i = 0; i < stages; ++i) row.push_back(i < l.stage_ms.size() ? format_fixed(l.stage_ms[i], 5) : "");
        row.insert(row.end(), {r.device.name, format_fixed(r.device.copy_gbps, 1), r.host.date});
        t.add_row(row);
    }
    return t.csv();
}

Json json(const Report& r) {
    Json variants = Json::array(), cases = Json::array(), perf = Json::array();
    for (const auto& res : r.results) {
        variants.push_back({{"name", res.name},
                            {"exercise", res.exercise},
                            {"kind", res.kind},
                            {"reference", res.reference},
                            {"peer", res.peer},
                            {"status", std::string(status_name(res.status))},
                            {"detail", res.detail},
                            {"cases_passed", res.cases_passed},
                            {"cases_failed", res.cases_failed},
                            {"cases_total", res.cases_total},
                            {"flags", res.flags},
                            {"notes", res.notes}});
        if (res.sanitizer)
            variants.back()["sanitizer"] = {{"tool", res.sanitizer->tool},
                                            {"clean", res.sanitizer->clean},
                                            {"checked", res.sanitizer->checked},
                                            {"findings", res.sanitizer->findings},
                                            {"report", res.sanitizer->report}};
        for (const auto& c : res.cases)
            cases.push_back({{"variant", res.name},
                             {"case", c.name},
                             {"status", std::string(status_name(c.status))},
                             {"pixels", c.pixels},
                             {"detail", c.detail},
                             {"diff", c.diff}});
    }
    for (const auto& p : r.perf) {
        const auto& l = p.line;
        const double pixels = static_cast<double>(l.width) * l.height;
        Json o = {{"variant", p.variant}, {"exercise", p.exercise}, {"kind", p.kind},   {"pattern", l.pattern}, {"params", l.params}, {"width", l.width},
                  {"height", l.height},   {"threads", l.threads},   {"kernel_ms", l.ms}, {"min_ms", l.min_ms},
                  {"max_ms", l.max_ms},   {"runs", l.runs},         {"e2e_ms", l.e2e_ms}};
        if (p.flops_per_pixel > 0) o["flops_per_pixel"] = p.flops_per_pixel;  // CPU rows too: --cpu-max-gflop's count
        if (p.kind == "cpu") {  // what the rubric judges a CPU time's trust by (cli/labkit/rubric.py)
            o["cpu_ms"] = l.cpu_ms;
            o["noise"] = l.noise;
            o["median_error"] = labkit::median_error(l.noise, l.runs);
            o["demand_ms"] = l.demand_ms;
        }
        if (const auto* e = exercise_of(r, p.exercise); e && p.kind == "gpu") {
            o["pass_ms"] = l.stage_ms;
            o["first_call_ms"] = l.first_ms;
            o["pct_copy_min_bytes"] = pct_of_copy(r, e->min_bytes_per_pixel * pixels, l.ms);
            if (p.flops_per_pixel > 0) {
                const double gflops = p.flops_per_pixel * pixels / (l.ms * 1e-3) / 1e9;
                o["gflops"] = gflops;
                if (r.device.fma_gflops > 0) o["pct_fma_rate"] = 100.0 * gflops / r.device.fma_gflops;
            }
            if (e->stages.size() > 1) o["pct_copy_pipeline_bytes"] = pct_of_copy(r, stage_bytes(*e) * pixels, l.ms);
        }
        perf.push_back(std::move(o));
    }
    return {{"lab", r.lab},
            {"label", r.label},
            {"seed", r.seed},
            {"sandbox", r.sandbox},
            {"sandboxed", r.sandbox.rfind("not sandboxed", 0) != 0},
            {"environment", environment_json(r)},
            {"variants", std::move(variants)},
            {"cases", std::move(cases)},
            {"performance", std::move(perf)},
            // the bound of a settled CPU measurement's median_error, by which the rubric trusts one
            {"settled_error", labkit::RunPolicy::kSettledError},
            {"performance_problems", r.perf_problems},
            {"timing_photo", r.timing_photo}};
}

}  // namespace

void print_environment(const Report& r) {
    std::printf("GPU Labkit — %s (%s)\n", r.lab.c_str(), r.label.c_str());
    if (r.device.available)
        std::printf("GPU: %s, %d SMs, %.0f GiB, compute %d.%d, driver %s, CUDA runtime %s, device copy %.0f GB/s, "
                    "FP32 FMA %.0f GFLOP/s\n",
                    r.device.name.c_str(), r.device.sms, r.device.memory_gib, r.device.cc_major, r.device.cc_minor,
                    r.device.driver_version.c_str(), r.device.runtime_version.c_str(), r.device.copy_gbps,
                    r.device.fma_gflops);
    else if (r.emulated)
        std::printf("GPU: %s\n", r.device.unavailable_reason.c_str());
    else
        std::printf("GPU: none (%s): GPU variants are not run here, never passed: 'TODO' when not written yet,\n"
                    "     ERROR when a dry run on small images reaches a throw or a launch no GPU would start,\n"
                    "     'not run' when written, compiled and through that dry run (check them on a GPU:\n"
                    "     docs/gpu_time.md)\n",
                    r.device.unavailable_reason.c_str());
    std::printf("CPU: %s, %d threads; %s; seed %llu (rerun with --seed %llu)\n", r.host.cpu_model.c_str(),
                r.host.threads, r.host.date.c_str(), static_cast<unsigned long long>(r.seed),
                static_cast<unsigned long long>(r.seed));
    std::printf("Student code: %s\n\n", r.sandbox.c_str());
    std::fflush(stdout);
}

void print_correctness(const Report& r) {
    for (const auto& t : correctness_tables(r)) std::printf("%s\n", t.terminal().c_str());
    // The first failing case is often the least telling one (a 1xN strip): show the first of
    // each size class, with its diff image, and leave the rest to the JSON report.
    for (const auto& res : r.results) {
        if (res.cases_failed < 2) {
            for (const auto& c : res.cases)
                if (!c.diff.empty()) std::printf("diff image: %s (red: wrong, yellow: holds the poison value, as a pixel never written does)\n", c.diff.c_str());
            continue;
        }
        std::printf("%s fails %d of %d cases; the first of each size:\n", res.name.c_str(), res.cases_failed,
                    res.cases_total);
        std::vector<const CaseResult*> shown;
        const auto show = [&](const char* label, const CaseResult& c) {
            std::printf("  %-25s %s: %s\n", label, c.name.c_str(), c.detail.c_str());
            if (!c.diff.empty()) std::printf("  %-25s diff image %s\n", "", c.diff.c_str());
            shown.push_back(&c);
        };
        for (const SizeClass k : kSizeClasses) {
            const auto it = std::find_if(res.cases.begin(), res.cases.end(), [&](const CaseResult& c) {
                return c.status != Status::pass && size_class(c.pixels) == k;
            });
            if (it != res.cases.end()) show(size_class_label(k), *it);
        }
        // A lab's own case (its handout's worked example) is the one a student can follow by hand.
        for (const auto& c : res.cases)
            if (c.status != Status::pass && c.lab_case && std::find(shown.begin(), shown.end(), &c) == shown.end())
                show("the lab's own case", c);
        std::string failing;
        constexpr int kListed = 8;  // the names say which filter, border or pattern fails
        int listed = 0;
        for (const auto& c : res.cases)
            if (c.status != Status::pass && listed++ < kListed) failing += (failing.empty() ? "" : "; ") + c.name;
        if (res.cases_failed > kListed) failing += "; ... (" + std::to_string(res.cases_failed - kListed) + " more)";
        std::printf("  failing cases: %s\n", failing.c_str());
        std::printf("  every failing case, with its detail, is in the Markdown report (labkit writes results/<lab>-<label>.md); "
                    "only those above have a diff image\n");
    }
    if (std::any_of(r.results.begin(), r.results.end(), [](const VariantResult& res) { return res.status == Status::pass_emulated; }))
        std::printf("%s.\n", kEmulationCaveat);
    for (const auto& res : r.results) {
        if (!res.sanitizer) continue;
        const auto& s = *res.sanitizer;
        const char* said = !s.clean ? " found errors" : s.checked ? " found nothing" : " could not watch the whole check";
        std::printf("%s %s: %s%s\n", !s.clean ? "SANITIZER" : s.checked ? "CLEAN" : "UNCHECKED", res.name.c_str(),
                    s.tool.c_str(), said);
        for (const auto& f : s.findings) std::printf("  %s\n", f.c_str());
        if (!s.report.empty()) std::printf("  its whole report: %s\n", s.report.c_str());
    }
    std::fflush(stdout);
}

void print_timing_verdicts(const Report& r) {
    for (const auto& res : r.results) {
        if (res.status == Status::fail && res.cases_failed == 0 && res.cases_passed > 0)
            std::printf("FAIL %s after timing: %s\n", res.name.c_str(), res.detail.c_str());
        for (const auto& f : res.flags)
            std::printf("REVIEW %s: timings flagged and left out of the tables: %s\n", res.name.c_str(), f.c_str());
        for (const auto& n : res.notes) std::printf("NOTE %s: %s\n", res.name.c_str(), n.c_str());
    }
    std::fflush(stdout);
}

void print_performance(const Report& r) {
    for (const auto& t : performance_tables(r)) std::printf("%s\n", t.terminal().c_str());
    for (const auto& p : r.perf_problems) std::printf("timing problem: %s\n", p.c_str());
    std::fflush(stdout);
}

void write_files(const Report& r, const std::string& json_path, const std::string& csv_path, const std::string& md_path) {
    if (!md_path.empty()) write_text(md_path, markdown(r));
    if (!csv_path.empty()) write_text(csv_path, csv(r));
    // Text from student code was made valid UTF-8 where it came in (printable); replace, never
    // throw, should any other byte reach the report.
    if (!json_path.empty()) write_text(json_path, json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace grader
