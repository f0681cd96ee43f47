#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>

#include "json.hpp"
#include "labkit/errors.hpp"
#include "labkit/table.hpp"

namespace integral_image {
namespace {

using labkit::format_fixed;
using labkit::Table;

constexpr std::size_t kColumnsPerTable = 6;  // variant columns per table: ~200 characters wide

std::string ratio(double x) { return x >= 100 ? format_fixed(x, 0) : x >= 10 ? format_fixed(x, 1) : format_fixed(x, 2); }
std::string ms(double x) { return x >= 100 ? format_fixed(x, 1) : x >= 1 ? format_fixed(x, 3) : format_fixed(x, 4); }
std::string size_label(int w, int h) { return w == h ? std::to_string(w) + "²" : std::to_string(w) + "x" + std::to_string(h); }

bool is_openmp(const std::string& name) { return name == "cpu-openmp"; }
constexpr const char* kBaseline = "cpu-sequential";
constexpr const char* kNaive = "gpu-01-naive";

// The time a table shows for a variant at a size: GPU kernel time; CPU time, the best thread
// count for OpenMP.
struct Best {
    double ms = 0;
    const PerfPoint* point = nullptr;
};

std::map<std::string, std::map<int, Best>> best_times(const Report& r) {
    std::map<std::string, std::map<int, Best>> best;
    for (const auto& p : r.perf) {
        auto& b = best[p.variant][p.width];
        if (!b.point || p.ms < b.ms) b = {p.ms, &p};
    }
    return best;
}

std::vector<std::string> timed_order(const Report& r, bool want_transpose) {
    std::vector<std::string> names;
    auto add = [&](const Entry& e) {
        if ((e.kind == EntryKind::transpose) != want_transpose) return;
        if (std::find(names.begin(), names.end(), e.name) != names.end()) return;
        if (std::any_of(r.perf.begin(), r.perf.end(), [&](const PerfPoint& p) { return p.variant == e.name; }))
            names.push_back(e.name);
    };
    for (const auto& e : r.extra_entries) add(e);
    for (const auto& res : r.results) add(res.entry);
    return names;
}

std::vector<int> perf_sizes(const Report& r) {
    std::vector<int> sizes;
    for (const auto& p : r.perf)
        if (std::find(sizes.begin(), sizes.end(), p.width) == sizes.end()) sizes.push_back(p.width);
    std::sort(sizes.begin(), sizes.end());
    return sizes;
}

std::optional<double> lookup(const std::map<std::string, std::map<int, Best>>& best, const std::string& v, int n) {
    const auto it = best.find(v);
    if (it == best.end()) return std::nullopt;
    const auto jt = it->second.find(n);
    if (jt == it->second.end()) return std::nullopt;
    return jt->second.ms;
}

double pct_of_copy(const Report& r, double bytes, double time_ms) {
    if (r.device.copy_gbps <= 0 || time_ms <= 0) return 0;
    return 100.0 * bytes / (time_ms * 1e-3) / 1e9 / r.device.copy_gbps;
}
double gbps(double bytes, double time_ms) { return time_ms > 0 ? bytes / (time_ms * 1e-3) / 1e9 : 0; }

// rows = resolution, columns = variants, in chunks that fit a terminal.
std::vector<Table> grid(const std::string& title, const std::vector<std::string>& names, const std::vector<int>& sizes,
                        const std::function<std::string(const std::string&, int)>& cell) {
    std::vector<Table> tables;
    for (std::size_t start = 0; start < names.size(); start += kColumnsPerTable) {
        const std::size_t end = std::min(names.size(), start + kColumnsPerTable);
        std::vector<std::string> headers{"resolution"};
        headers.insert(headers.end(), names.begin() + start, names.begin() + end);
        const std::string part = names.size() > kColumnsPerTable
                                     ? " (" + std::to_string(start / kColumnsPerTable + 1) + "/" +
                                           std::to_string((names.size() + kColumnsPerTable - 1) / kColumnsPerTable) + ")"
                                     : "";
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
            {"variant", "kind", "verdict", "cases", "detail"});
    for (const auto& res : r.results)
        t.add_row({res.entry.name, kind_name(res.entry.kind), std::string(grader::status_label(res.status)),
                   res.cases_total ? std::to_string(res.cases_passed) + "/" + std::to_string(res.cases_total) : "—",
                   res.detail});
    return {t};
}

std::vector<Table> performance_tables(const Report& r) {
    std::vector<Table> tables;
    const auto best = best_times(r);
    const auto sizes = perf_sizes(r);
    const auto names = timed_order(r, false);
    const auto transposes = timed_order(r, true);
    const std::string who = " — " + r.lab + " (" + r.label + ")";

    auto add = [&](std::vector<Table> ts) { tables.insert(tables.end(), ts.begin(), ts.end()); };
    if (!names.empty()) {
        add(grid("Time, ms (GPU: kernels only; cpu-openmp: best thread count)" + who, names, sizes,
                 [&](const std::string& v, int n) {
                     const auto t = lookup(best, v, n);
                     return t ? ms(*t) : "—";
                 }));
        add(grid("Speedup vs cpu-sequential" + who, names, sizes, [&](const std::string& v, int n) {
            const auto t = lookup(best, v, n), base = lookup(best, kBaseline, n);
            return t && base ? ratio(*base / *t) : "—";
        }));
        std::vector<std::string> gpu;
        std::copy_if(names.begin(), names.end(), std::back_inserter(gpu), [](const std::string& v) { return v.rfind("gpu-", 0) == 0; });
        if (!gpu.empty() && best.count(kNaive))
            add(grid("Speedup vs gpu-01-naive (same run)" + who, gpu, sizes, [&](const std::string& v, int n) {
                const auto t = lookup(best, v, n), base = lookup(best, kNaive, n);
                return t && base ? ratio(*base / *t) : "—";
            }));
    }
    // OpenMP thread sweep.
    std::vector<int> threads;
    for (const auto& p : r.perf)
        if (is_openmp(p.variant) && std::find(threads.begin(), threads.end(), p.threads) == threads.end())
            threads.push_back(p.threads);
    if (!threads.empty()) {
        std::sort(threads.begin(), threads.end());
        std::vector<std::string> headers{"resolution"};
        for (int t : threads) headers.push_back(std::to_string(t) + (t == 1 ? " thread" : " threads"));
        Table t("cpu-openmp thread sweep, ms (" + r.host.cpu_model + ")" + who, headers);
        for (int n : sizes) {
            std::vector<std::string> row{size_label(n, n)};
            for (int th : threads) {
                const auto it = std::find_if(r.perf.begin(), r.perf.end(), [&](const PerfPoint& p) {
                    return is_openmp(p.variant) && p.width == n && p.threads == th;
                });
                row.push_back(it == r.perf.end() ? "—" : ms(it->ms));
            }
            t.add_row(row);
        }
        tables.push_back(t);
    }
    // GPU detail at every size: both bandwidth figures, the passes, the ratios.
    for (int n : sizes) {
        const double pixels = static_cast<double>(n) * n;
        Table t("GPU detail at " + size_label(n, n) + ": % of measured copy bandwidth (" +
                    format_fixed(r.device.copy_gbps, 0) + " GB/s)" + who,
                {"variant", "kernel ms", "e2e ms", "GB/s @5 B/px", "% copy", "GB/s @29 B/px", "% copy",
                 "pass 1 %", "pass 2 %", "pass 3 %", "pass 4 %", "× seq", "× omp", "× naive"});
        for (const auto& p : r.perf) {
            if (p.kind != EntryKind::gpu || p.width != n) continue;
            std::vector<std::string> row{p.variant, ms(p.ms), ms(p.e2e_ms),
                                         format_fixed(gbps(kMinBytesPerPixel * pixels, p.ms), 0),
                                         format_fixed(pct_of_copy(r, kMinBytesPerPixel * pixels, p.ms), 1),
                                         format_fixed(gbps(kPipelineBytesPerPixel * pixels, p.ms), 0),
                                         format_fixed(pct_of_copy(r, kPipelineBytesPerPixel * pixels, p.ms), 1)};
            for (int i = 0; i < kPasses; ++i)
                row.push_back(format_fixed(pct_of_copy(r, kPassBytesPerPixel[i] * pixels, p.pass_ms[i]), 1));
            for (const char* base : {kBaseline, "cpu-openmp", kNaive}) {
                const auto b = lookup(best, base, n);
                row.push_back(b ? ratio(*b / p.ms) : "—");
            }
            t.add_row(row);
        }
        if (!t.empty()) tables.push_back(t);
    }
    if (!transposes.empty()) {
        add(grid("Transpose exercise: ms, and % of copy bandwidth at 8 B/px" + who, transposes, sizes,
                 [&](const std::string& v, int n) {
                     const auto t = lookup(best, v, n);
                     if (!t) return std::string("—");
                     return ms(*t) + " (" + format_fixed(pct_of_copy(r, kTransposeBytesPerPixel * n * n, *t), 0) + "%)";
                 }));
    }
    return tables;
}

grader::Json environment_json(const Report& r) {
    return grader::Json::object()
        .set("gpu", r.device.available ? grader::Json(r.device.name) : grader::Json(nullptr))
        .set("gpu_unavailable_reason", r.device.unavailable_reason)
        .set("sms", r.device.sms)
        .set("compute_capability", std::to_string(r.device.cc_major) + "." + std::to_string(r.device.cc_minor))
        .set("gpu_memory_gib", r.device.memory_gib)
        .set("driver", r.device.driver_version)
        .set("cuda", r.device.runtime_version)
        .set("copy_gbps", r.device.copy_gbps)
        .set("cpu", r.host.cpu_model)
        .set("threads", r.host.threads)
        .set("date", r.host.date);
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace

labkit::DeviceInfo parse_device(const grader::ChildOutcome& probe) {
    labkit::DeviceInfo d;
    std::map<std::string, std::string> kv;
    for (const auto& [key, value] : probe.lines)
        if (key == "device") {
            const auto tab = value.find('\t');
            kv[value.substr(0, tab)] = tab == std::string::npos ? "" : value.substr(tab + 1);
        }
    d.available = kv["available"] == "1";
    d.unavailable_reason = kv["reason"];
    if (kv.empty()) d.unavailable_reason = "device probe failed: " + probe.describe() + " " + probe.last("exception");
    d.name = kv["name"];
    if (!kv["sms"].empty()) d.sms = std::stoi(kv["sms"]);
    const auto dot = kv["cc"].find('.');
    if (dot != std::string::npos) {
        d.cc_major = std::stoi(kv["cc"].substr(0, dot));
        d.cc_minor = std::stoi(kv["cc"].substr(dot + 1));
    }
    if (!kv["memory_gib"].empty()) d.memory_gib = std::stod(kv["memory_gib"]);
    d.driver_version = kv["driver"];
    d.runtime_version = kv["runtime"];
    if (!kv["copy_gbps"].empty()) d.copy_gbps = std::stod(kv["copy_gbps"]);
    return d;
}

void print_environment(const Report& r) {
    std::printf("GPU Labkit — %s (%s)\n", r.lab.c_str(), r.label.c_str());
    if (r.device.available)
        std::printf("GPU: %s, %d SMs, %.0f GiB, compute %d.%d, driver %s, CUDA runtime %s, device copy %.0f GB/s\n",
                    r.device.name.c_str(), r.device.sms, r.device.memory_gib, r.device.cc_major, r.device.cc_minor,
                    r.device.driver_version.c_str(), r.device.runtime_version.c_str(), r.device.copy_gbps);
    else
        std::printf("GPU: none (%s): GPU variants are skipped, not passed\n", r.device.unavailable_reason.c_str());
    std::printf("CPU: %s, %d threads; %s; seed %llu (rerun with --seed %llu)\n\n", r.host.cpu_model.c_str(),
                r.host.threads, r.host.date.c_str(), static_cast<unsigned long long>(r.seed),
                static_cast<unsigned long long>(r.seed));
}

void print_correctness(const Report& r) {
    for (const auto& t : correctness_tables(r)) std::printf("%s\n", t.terminal().c_str());
    for (const auto& res : r.results)
        for (const auto& c : res.cases)
            if (!c.diff.empty()) std::printf("diff image: %s (red: wrong, yellow: never written)\n", c.diff.c_str());
    std::fflush(stdout);
}

void print_performance(const Report& r) {
    for (const auto& t : performance_tables(r)) std::printf("%s\n", t.terminal().c_str());
    for (const auto& p : r.perf_problems) std::printf("timing problem: %s\n", p.c_str());
    std::fflush(stdout);
}

void write_files(const Report& r, const std::string& json, const std::string& csv, const std::string& markdown) {
    if (!markdown.empty()) {
        std::string text = "# " + r.lab + " (" + r.label + ")\n\n";
        text += r.device.available ? "GPU: " + r.device.name + ", " + std::to_string(r.device.sms) + " SMs, driver " +
                                         r.device.driver_version + ", CUDA " + r.device.runtime_version +
                                         ", device copy " + format_fixed(r.device.copy_gbps, 0) + " GB/s  \n"
                                   : "GPU: none (" + r.device.unavailable_reason + ")  \n";
        text += "CPU: " + r.host.cpu_model + ", " + std::to_string(r.host.threads) + " threads  \nDate: " + r.host.date +
                ", seed " + std::to_string(r.seed) + "\n\n";
        for (const auto& t : correctness_tables(r)) text += t.markdown() + "\n";
        for (const auto& t : performance_tables(r)) text += t.markdown() + "\n";
        write_text(markdown, text);
    }
    if (!csv.empty()) {
        Table t("timings", {"lab", "label", "variant", "kind", "width", "height", "threads", "ms_median", "ms_min",
                            "ms_max", "runs", "e2e_ms", "pass1_ms", "pass2_ms", "pass3_ms", "pass4_ms", "gpu",
                            "copy_gbps", "date"});
        for (const auto& p : r.perf) {
            std::vector<std::string> row{r.lab, r.label, p.variant, kind_name(p.kind), std::to_string(p.width),
                                         std::to_string(p.height), std::to_string(p.threads), format_fixed(p.ms, 5),
                                         format_fixed(p.min_ms, 5), format_fixed(p.max_ms, 5), std::to_string(p.runs),
                                         format_fixed(p.e2e_ms, 5)};
            for (double pm : p.pass_ms) row.push_back(format_fixed(pm, 5));
            row.insert(row.end(), {r.device.name, format_fixed(r.device.copy_gbps, 1), r.host.date});
            t.add_row(row);
        }
        write_text(csv, t.csv());
    }
    if (!json.empty()) {
        auto root = grader::Json::object();
        root.set("lab", r.lab).set("label", r.label).set("seed", static_cast<unsigned long long>(r.seed));
        root.set("environment", environment_json(r));
        auto variants = grader::Json::array();
        auto cases = grader::Json::array();
        for (const auto& res : r.results) {
            variants.push(grader::Json::object()
                              .set("name", res.entry.name)
                              .set("kind", kind_name(res.entry.kind))
                              .set("status", std::string(grader::status_name(res.status)))
                              .set("detail", res.detail)
                              .set("cases_passed", res.cases_passed)
                              .set("cases_failed", res.cases_failed)
                              .set("cases_total", res.cases_total));
            for (const auto& c : res.cases)
                cases.push(grader::Json::object()
                               .set("variant", res.entry.name)
                               .set("case", c.name)
                               .set("status", std::string(grader::status_name(c.status)))
                               .set("detail", c.detail)
                               .set("diff", c.diff));
        }
        root.set("variants", std::move(variants)).set("cases", std::move(cases));
        auto perf = grader::Json::array();
        for (const auto& p : r.perf) {
            const double pixels = static_cast<double>(p.width) * p.height;
            auto o = grader::Json::object()
                         .set("variant", p.variant)
                         .set("kind", kind_name(p.kind))
                         .set("width", p.width)
                         .set("height", p.height)
                         .set("threads", p.threads)
                         .set("kernel_ms", p.ms)
                         .set("min_ms", p.min_ms)
                         .set("max_ms", p.max_ms)
                         .set("runs", p.runs)
                         .set("e2e_ms", p.e2e_ms);
            if (p.kind == EntryKind::gpu) {
                auto passes = grader::Json::array();
                for (double pm : p.pass_ms) passes.push(pm);
                o.set("pass_ms", std::move(passes))
                    .set("pct_copy_min_bytes", pct_of_copy(r, kMinBytesPerPixel * pixels, p.ms))
                    .set("pct_copy_pipeline_bytes", pct_of_copy(r, kPipelineBytesPerPixel * pixels, p.ms));
            }
            if (p.kind == EntryKind::transpose)
                o.set("pct_copy", pct_of_copy(r, kTransposeBytesPerPixel * pixels, p.ms));
            perf.push(std::move(o));
        }
        root.set("performance", std::move(perf));
        auto problems = grader::Json::array();
        for (const auto& p : r.perf_problems) problems.push(p);
        root.set("performance_problems", std::move(problems));
        write_text(json, root.dump());
    }
}

}  // namespace integral_image
