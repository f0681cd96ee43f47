// starter: generates labs/convolution/cpu_openmp_expert.cpp
// starter: step optional challenge (bonus): the OpenMP version vectorized and cache-blocked, a
// starter: step Gaussian at least as fast as OpenCV's `GaussianBlur`
// starter: prompt
// CPU, OpenMP — expert tier (optional challenge, bonus points): every filter at the cores' pace
// Changes vs cpu_openmp: yours to say here, as the other files do, with what it costs in bytes
//   and FLOP per pixel, where it stops working, and what you read.
// The target: a Gaussian at least as fast as OpenCV's cv2.GaussianBlur (float32, the mirror
//   border, the same threads) on a 16-core machine, and every other filter as fast as you can
//   make it. The reference solution reaches it at k = 3 and 5 on 8192x8192; at larger k it has
//   not been compared in one run, and the kit's build targets baseline x86-64 (SSE2), while
//   OpenCV picks AVX2 code at run time (measurements/results-handwritten-2026-11-26.md). The grader
//   leaves out CPU calls over 2 GFLOP: it times this variant at 4096x4096 for every Gaussian, at
//   8192x8192 up to k = 5.
//   `./labkit bench convolution --peers --student --variants 'cpu-openmp*' --sizes 4096,8192`
//   times yours beside OpenCV.
// starter: solution
// CPU, OpenMP — expert tier (optional challenge): every filter at the pace of the cores' vector units
// Changes vs cpu_openmp: cpu_openmp sends every tap through border_index (a branch) and adds its
//   k^2 products one after the other, so nothing vectorizes, and a separable filter costs it all
//   k^2 taps too. Here:
//   - each thread owns one band of whole rows (one parallel region), walked in strips of
//     kStripWidth columns; the border is applied once per input row (a copy r wider on each
//     side, on the image's two edge strips only), so the loops over a row's pixels have no
//     branch and vectorize (`omp simd`);
//   - separable filters (the kit passes the factors, as to 05): the row pass of each input row,
//     once per strip, into a per-thread ring of k rows (800 KB at k = 25: L2), then per output
//     row the column pass from the ring to the output, clamped. No intermediate image;
//     4k FLOP/px;
//   - other filters: the k x k sum, one weight row at a time, accumulated in a row of sums (L1)
//     from a ring of k padded input rows; 2 k^2 FLOP/px;
//   - k is a template parameter: the k terms of a sum are written out at compile time, in four
//     independent partial sums, with the weights held in registers where they fit. Taps that
//     share a weight (a Gaussian's, a box's, each row of a disk, and a disk's rows top to
//     bottom) add their inputs first: r + 1 multiplies instead of k, and for a filter symmetric
//     top to bottom, one pass for two input rows.
//   - the band functions are built twice (the end of this file, which includes itself under two
//     namespaces): for any x86-64, whose baseline is SSE2 (4 floats, no FMA), and for AVX2 + FMA
//     (8 floats, fused multiply-adds), picked at run time from what the CPU reports, as OpenCV
//     picks its AVX2 code. The build's flags stay portable: a binary built on one node runs on
//     any other.
// Cost: 4 B/px read and 4 B/px written, each once (8 B/px; a store first reads its line: 12 B/px
//   at DRAM), plus the 2r halo rows of each band (and the 2r halo columns of each strip, past
//   8192 columns). Separable: per pixel and pass, k loads from L1/L2 and about k multiply-adds;
//   memory-bound on many cores at small k, bound by the vector units at large k.
// Limits: the AVX2 build measured 1.4x (k = 25) to 2.3x (k = 9) faster than the SSE2 one at
//   4096^2 on the 2-core AMD EPYC development VM, 2 threads; no AVX-512 build (wider vectors, at
//   lower clocks on many cores), and GCC on x86-64 only (elsewhere the portable build alone).
//   Clang 14 leaves the row passes scalar: it vectorizes no loop that reads in[x], in[x + 1]
//   and in[x + 2]. The sums are added in another order than the reference's (row pass first,
//   partial sums, paired taps, and with AVX2 fused multiply-adds): within the contract's
//   tolerance, as 04's are. A symmetric filter is recognized from its weights, exactly
//   equal. An image with fewer rows than threads leaves threads idle (bands are whole rows). The
//   stores are ordinary: a streaming store would save the line read at DRAM (4 B/px) but needs
//   an aligned pitch and an x86 intrinsic.
// Ref: PMPP 4th ed., chapter 7 (convolution, tiling, halos); OpenMP 5.x, `simd`; Intel, "64 and
//   IA-32 Architectures Optimization Reference Manual" (cache blocking; 4 KB aliasing of set
//   indices); OpenCV's filter engine (cv::sepFilter2D: a row pass into a ring of rows, then the
//   column pass; symmetric kernels handled apart); GCC manual, "Function Specific Option Pragmas"
//   (#pragma GCC target) and "x86 Built-in Functions" (__builtin_cpu_supports).
// starter: end
// starter: solution
#ifndef CONVOLUTION_EXPERT_BANDS
// starter: end
#include <omp.h>

// starter: solution
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

// starter: end
#include "convolution.hpp"
// starter: prompt
//> #include "labkit/errors.hpp"
// starter: solution

// x86-64 with GCC: the band functions are also built for AVX2 + FMA and picked at run time
// (__builtin_cpu_supports); elsewhere only the portable build exists.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LABKIT_CPU_DISPATCH 1
#else
#define LABKIT_CPU_DISPATCH 0
#endif
// starter: end

namespace convolution {
// starter: prompt
//>
//> void cpu_openmp_expert([[maybe_unused]] Input in, [[maybe_unused]] Output out, [[maybe_unused]] const float* weights,
                       //> [[maybe_unused]] const float* row, [[maybe_unused]] const float* column, [[maybe_unused]] int size,
                       //> [[maybe_unused]] Border border, [[maybe_unused]] int threads) {
    // TODO(step X1): measure first. Time your cpu-openmp at 1024 for k = 3 and k = 25 (./labkit
    //   grade convolution --variants 'cpu-openmp*' --perf-sizes 1024 --perf-params k=3,k=25; the 2D
    //   sum at k = 25 is 1250 FLOP a pixel, so the grader times no larger image of it on the CPU).
    //   Divide the FLOP (2 k^2 per pixel) and the bytes (8 per pixel) by the time: which limit is
    //   it near, if any? Compile your file with -fopt-info-vec-missed (or read its assembly): did
    //   the tap loop vectorize, and what stopped it?
    //
    // TODO(step X2): the border once per row, never per tap. If X1 found a branch in the tap loop,
    //   where does it come from, and must it be there for every pixel? Copy an input row into a
    //   buffer r wider on each side, the border applied to those 2r columns; along y, a border is
    //   only a choice of which row to read (and a row of the zero border adds nothing). How many
    //   times must each input row be copied, and which rows need no copy at all?
    //
    // TODO(step X3): the tap loops. Put the pixel loop outside (`#pragma omp simd`) and the taps
    //   inside. With k a compile-time constant (a template, one function per k picked from a
    //   table, not a switch in the pixel loop) the taps can unroll: check that they did for
    //   k = 25 too (a compiler unrolls only so far). Then time k = 25: one sum of k dependent
    //   adds per output waits k times the add's latency; what do several partial sums cost you,
    //   given the contract's tolerance? Are the weights reloaded for every vector of outputs?
    //
    // TODO(step X4): separable filters. `row` and `column` are given for them (both nullptr
    //   otherwise): a row pass and a column pass, 4k FLOP per pixel instead of 2 k^2. Where does
    //   the intermediate live: a second image (8 more B/px), or a ring of k rows of row sums per
    //   thread that stays in cache? Pitfalls: the intermediate is not clamped (reflection question
    //   7 asks why); time 2048 against 2000 columns: when k rows a power of two of bytes apart are
    //   read at once, which cache sets do they land in, and how many ways has your L1? A Gaussian's
    //   taps are symmetric: what does that save?
    //
    // TODO(step X5): the threads. Give each thread one band of whole rows, in one parallel
    //   region: neighbouring output rows share k - 1 input rows. How many bytes is a ring of
    //   k = 25 rows at 8192 columns, and which cache holds it? If it does not fit, cut the band
    //   into strips of columns: how wide, and what does a strip compute twice? Pitfalls: the
    //   team you get may be smaller than `threads`, and an image may have fewer rows than threads.
    //
    // Check 1x1, 1xN, Nx1, primes, k larger than the image, every border, images wider than your
    // strips (the grader's wide images use one filter only), and time the non-separable
    // `--perf-params disk:25` too. Then delete this throw.
    //> throw labkit::NotImplemented("cpu_openmp_expert (cpu_openmp_expert.cpp): optional challenge");
//> }
// starter: solution
namespace {

// Output columns per strip: whole rows up to 8192 columns. The k = 25 rows of row sums a column
// pass reads are then 800 KB, in the 1-2 MB L2 of a current server core; strips bound that for
// wider images. Narrower strips read the image in shorter pieces, which the hardware prefetchers
// stream worse: at 8192^2 on 2 threads of a 2-core AMD EPYC VM, k = 3 took 53 ms with 2048-column
// strips and 34 ms with whole rows (k = 25: 178 and 170 ms).
constexpr int kStripWidth = 8192;
// Floats from one row of a ring to the next: a strip and one cache line, so that the k rows the
// column pass reads at once fall in k different L1 sets. At a power-of-two pitch (the image's, at
// 2048, 4096 or 8192 columns) they would all share one set, and beyond its 8 ways they evict
// each other: a column pass that read the image's k rows directly ran k = 25 2.8x slower at
// 2048^2 than at 2000^2 (one core of a 2-core AMD EPYC VM).
constexpr int kLineBytes = 64;  // a cache line on x86-64 and most ARM cores
constexpr int kRingStride = kStripWidth + kLineBytes / static_cast<int>(sizeof(float));
constexpr int kNoRow = std::numeric_limits<int>::min();  // a ring slot that holds no row yet

struct Job {
    Input in;
    Output out;
    const float* weights;  // k x k, row-major
    const float* row;      // a separable filter's factors; nullptr for any other filter
    const float* column;
    Border border;
};

// The columns a strip writes, [x0, x1); its sums read [x0 - r, x1 + r).
struct Strip {
    int x0, x1;
    bool inside;  // [x0 - r, x1 + r) lies inside the image: no border column to make up
    Strip(int x, int width, int r)
        : x0(x), x1(std::min(width, x + kStripWidth)), inside(x0 - r >= 0 && x1 + r <= width) {}
};

// Independent partial sums per output. One chain of k dependent adds costs k times the add's
// latency (3-4 cycles) per vector of outputs, several times what the multiplies and loads take;
// four chains keep the adder busy. The contract accepts any order of the additions.
constexpr int kChains = 4;

bool symmetric(const float* taps, int size) {
    for (int j = 0; j < size / 2; ++j)
        if (taps[j] != taps[size - 1 - j]) return false;
    return true;
}

using BandFn = void (*)(const Job&, int y0, int y1);
struct Bands {
    BandFn separable, symmetric, direct;  // symmetric: a separable filter whose factors both are
};

// The band functions (the end of this file, which includes itself here), for any CPU. Each
// inclusion puts every template in a namespace of its own: its own instantiations, its own code.
#define CONVOLUTION_EXPERT_BANDS
namespace portable {
#include "cpu_openmp_expert.cpp"
}  // namespace portable

#if LABKIT_CPU_DISPATCH
// The same, for AVX2 and FMA: 8 floats a vector and fused multiply-adds, chosen at run time.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
#include "cpu_openmp_expert.cpp"
}  // namespace avx2
#pragma GCC pop_options
#endif
#undef CONVOLUTION_EXPERT_BANDS

// This CPU's band functions for a filter of radius r: AVX2 + FMA code where the CPU has both,
// unless the environment sets LABKIT_CPU_PORTABLE (the tests run both builds on one machine).
const Bands& bands_for(int r) {
#if LABKIT_CPU_DISPATCH
    static const bool wide = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (wide && std::getenv("LABKIT_CPU_PORTABLE") == nullptr) return avx2::kBands[static_cast<std::size_t>(r)];
#endif
    return portable::kBands[static_cast<std::size_t>(r)];
}

}  // namespace

void cpu_openmp_expert(Input in, Output out, const float* weights, const float* row, const float* column, int size,
                       Border border, int threads) {
    const Job job{in, out, weights, row, column, border};
    const Bands& bands = bands_for(size / 2);
    BandFn band = bands.direct;
    if (row != nullptr && column != nullptr)
        band = symmetric(row, size) && symmetric(column, size) ? bands.symmetric : bands.separable;
#pragma omp parallel num_threads(threads)
    {
        // Contiguous bands of rows, as equal as whole rows allow: neighbouring output rows share
        // k - 1 input rows, which stay in this core's cache. The team may be smaller than asked.
        const long long t = omp_get_thread_num(), team = omp_get_num_threads();
        const int y0 = static_cast<int>(in.height * t / team), y1 = static_cast<int>(in.height * (t + 1) / team);
        if (y0 < y1) band(job, y0, y1);
    }
}
// starter: end

}  // namespace convolution
// starter: solution

#else
// The band functions, included twice above (no header may be included here: they are the first
// part's, outside the namespaces).

// term(0) + ... + term(T-1), term j added to partial sum j mod kChains, the T terms written out at
// compile time (a fold). A loop over the taps would be unrolled only up to the compiler's limit
// (GCC: 16 iterations), and a k = 25 loop left rolled inside the pixel loop keeps that loop scalar.
template <int T, class Term>
float sum_of(Term term) {
    constexpr int chains = std::min(T, kChains);
    std::array<float, chains> part;
    [&]<int... C>(std::integer_sequence<int, C...>) { ((part[C] = term(C)), ...); }(std::make_integer_sequence<int, chains>{});
    [&]<int... J>(std::integer_sequence<int, J...>) {
        ((part[J % chains] += term(chains + J)), ...);
    }(std::make_integer_sequence<int, T - chains>{});
    float sum = part[0];
    for (int c = 1; c < chains; ++c) sum += part[c];
    return sum;
}

// taps[0] * at(0) + ... + taps[K-1] * at(K-1). With kSymmetric (taps[j] == taps[K-1-j], as for a
// Gaussian or a box), the two values that share a weight are added first: r + 1 multiplies and
// weights to hold instead of K (OpenCV's filter engine does the same for symmetric kernels).
template <int K, bool kSymmetric, class At>
float dot(const std::array<float, K>& taps, At at) {
    constexpr int r = K / 2;
    if constexpr (kSymmetric)
        return sum_of<r + 1>([&](int j) { return taps[j] * (j < r ? at(j) + at(K - 1 - j) : at(j)); });
    else
        return sum_of<K>([&](int j) { return taps[j] * at(j); });
}

// The K weights as a local array: no store through another pointer can change them, so the
// compiler keeps in registers all that fit (read through the pointer, they were loaded and
// broadcast again for every vector of outputs).
template <int K>
std::array<float, K> local(const float* taps) {
    std::array<float, K> w;
    std::copy_n(taps, K, w.begin());
    return w;
}

// out[x] = sum over j < K of taps[j] * in[x + j] (+ acc[x]), for x in [0, n): one weight row
// across a padded row (n + K - 1 floats). acc may be out (a sum accumulated in place).
template <int K, bool kSymmetric, bool kAccumulate>
void correlate(const float* __restrict in, const float* weights, const float* acc, float* out, int n) {
    const auto taps = local<K>(weights);
#pragma omp simd
    for (int x = 0; x < n; ++x) {
        float sum = dot<K, kSymmetric>(taps, [&](int j) { return in[x + j]; });
        if constexpr (kAccumulate) sum += acc[x];
        out[x] = sum;
    }
}

// out[x] = clamp(sum over i < K of taps[i] * rows[i][x]), for x in [0, n): the column pass.
template <int K, bool kSymmetric>
void combine(const std::array<const float*, K>& rows, const float* weights, float* __restrict out, int n) {
    const auto taps = local<K>(weights);
#pragma omp simd
    for (int x = 0; x < n; ++x) out[x] = clamp_pixel(dot<K, kSymmetric>(taps, [&](int i) { return rows[i][x]; }));
}

void clamp_row(const float* __restrict in, float* __restrict out, int n) {
#pragma omp simd
    for (int x = 0; x < n; ++x) out[x] = clamp_pixel(in[x]);
}

void add_rows(const float* __restrict a, const float* __restrict b, float* __restrict out, int n) {
#pragma omp simd
    for (int x = 0; x < n; ++x) out[x] = a[x] + b[x];
}

// Columns [begin, end) of `row` (a row of `width` pixels) into dst, the border applied: what
// a strip's sums read, resolved once so that the tap loops need no index checks.
void pad_row(const float* row, int width, int begin, int end, Border border, float* dst) {
    const int inner_begin = std::max(begin, 0), inner_end = std::min(end, width);
    std::memcpy(dst + (inner_begin - begin), row + inner_begin, sizeof(float) * static_cast<std::size_t>(inner_end - inner_begin));
    auto outside = [&](int c) {
        const int sx = border_index(c, width, border);
        dst[c - begin] = sx < 0 ? 0.0f : row[sx];
    };
    for (int c = begin; c < inner_begin; ++c) outside(c);
    for (int c = inner_end; c < end; ++c) outside(c);
}

// A separable filter on rows [y0, y1): the row pass of each input row once per strip, into a
// ring of k rows, then per output row the column pass from the ring to the output.
template <int K, bool kSymmetric>
void separable_band(const Job& job, int y0, int y1) {
    constexpr int r = K / 2;
    const Input in = job.in;
    // Input row u (before the border) has its row sums in slot u mod K while the k output rows
    // that read them are computed. The zero border's rows are a row of zeros.
    std::vector<float> ring(static_cast<std::size_t>(K) * kRingStride), padded(kStripWidth + 2 * r),
        zeros(kStripWidth, 0.0f);
    std::array<int, K> held{};
    std::array<const float*, K> rows{};
    for (int x = 0; x < in.width; x += kStripWidth) {
        const Strip s(x, in.width, r);
        const int n = s.x1 - s.x0;
        held.fill(kNoRow);
        auto row_sums = [&](int u) -> const float* {
            const int sy = border_index(u, in.height, job.border);
            if (sy < 0) return zeros.data();
            const int slot = (u % K + K) % K;
            float* sums = ring.data() + static_cast<std::size_t>(slot) * kRingStride;
            if (held[slot] != u) {
                const float* src = padded.data();
                if (s.inside)
                    src = in.row(sy) + (s.x0 - r);  // nothing to pad: read the image in place
                else
                    pad_row(in.row(sy), in.width, s.x0 - r, s.x1 + r, job.border, padded.data());
                correlate<K, kSymmetric, false>(src, job.row, nullptr, sums, n);
                held[slot] = u;
            }
            return sums;
        };
        for (int y = y0; y < y1; ++y) {
            for (int i = 0; i < K; ++i) rows[i] = row_sums(y + i - r);
            combine<K, kSymmetric>(rows, job.column, job.out.row(y) + s.x0, n);
        }
    }
}

// Any filter on rows [y0, y1): the k x k sum, one weight row at a time, from k padded rows.
template <int K>
void direct_band(const Job& job, int y0, int y1) {
    constexpr int r = K / 2, span = kStripWidth + 2 * r;
    const Input in = job.in;
    // The ring: input row u (before the border) lives in slot u mod K while the k output rows
    // that read it are computed, so each row is padded once per strip. pair: two input rows
    // that share their weights, added.
    std::vector<float> ring(static_cast<std::size_t>(K) * span), acc(kStripWidth), pair(span);
    std::array<int, K> held{};
    // Weight row dy symmetric about its centre (a disk's, a Laplacian's); equal to row K-1-dy.
    std::array<bool, K> mirrored{}, same_rows{};
    for (int dy = 0; dy < K; ++dy) {
        mirrored[dy] = symmetric(job.weights + dy * K, K);
        same_rows[dy] = std::equal(job.weights + dy * K, job.weights + (dy + 1) * K, job.weights + (K - 1 - dy) * K);
    }
    for (int x = 0; x < in.width; x += kStripWidth) {
        const Strip s(x, in.width, r);
        const int n = s.x1 - s.x0;
        held.fill(kNoRow);
        // Row u's segment for this strip, or nullptr for a row of the zero border (it adds nothing).
        auto segment = [&](int u) -> const float* {
            const int sy = border_index(u, in.height, job.border);
            if (sy < 0) return nullptr;
            if (s.inside) return in.row(sy) + (s.x0 - r);  // nothing to pad: read the image in place
            const int slot = (u % K + K) % K;
            float* dst = ring.data() + static_cast<std::size_t>(slot) * span;
            if (held[slot] != u) {
                pad_row(in.row(sy), in.width, s.x0 - r, s.x1 + r, job.border, dst);
                held[slot] = u;
            }
            return dst;
        };
        for (int y = y0; y < y1; ++y) {
            bool first = true;  // row y itself is always inside the image: some row always counts
            auto add = [&](const float* seg, int dy) {
                const float* taps = job.weights + dy * K;
                if (first)
                    (mirrored[dy] ? correlate<K, true, false> : correlate<K, false, false>)(seg, taps, nullptr, acc.data(), n);
                else
                    (mirrored[dy] ? correlate<K, true, true> : correlate<K, false, true>)(seg, taps, acc.data(), acc.data(), n);
                first = false;
            };
            // Weight rows dy and K-1-dy, from the outside in; when they are equal (a filter
            // symmetric top to bottom), their two input rows are added first: one pass, not two.
            for (int dy = 0; dy <= r; ++dy) {
                const int mirror = K - 1 - dy;
                const float* top = segment(y + dy - r);
                const float* bottom = mirror == dy ? nullptr : segment(y + mirror - r);
                if (top != nullptr && bottom != nullptr && same_rows[dy]) {
                    add_rows(top, bottom, pair.data(), n + 2 * r);
                    add(pair.data(), dy);
                    continue;
                }
                if (top != nullptr) add(top, dy);
                if (bottom != nullptr) add(bottom, mirror);
            }
            clamp_row(acc.data(), job.out.row(y) + s.x0, n);
        }
    }
}

// The instantiations for radius 0 .. kMaxRadius, indexed by r = k / 2.
template <std::size_t... R>
constexpr std::array<Bands, sizeof...(R)> bands_by_radius(std::index_sequence<R...>) {
    return {Bands{separable_band<2 * R + 1, false>, separable_band<2 * R + 1, true>, direct_band<2 * R + 1>}...};
}
constexpr auto kBands = bands_by_radius(std::make_index_sequence<kMaxRadius + 1>{});
#endif  // CONVOLUTION_EXPERT_BANDS
// starter: end
