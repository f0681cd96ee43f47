// Lab 3 — 2D kernel convolution: the one interface every file of the lab shares.
//
// Contract: in and out are W x H gray float32 images, input values in [0, 255]. A filter is an
// odd square k x k array of weights K, 1 <= k <= 25, radius r = k / 2, stored row-major:
// K(dx, dy) = weights[(dy + r) * k + (dx + r)] for dx, dy in -r..r. The lab computes the
// CORRELATION (no flip of the kernel):
//
//   out(x, y) = clamp( sum over dy, dx in -r..r of K(dx, dy) * in~(x + dx, y + dy),  0, 255 )
//
// where in~ is the input extended past its edges by the border mode (border_index below). For a
// symmetric kernel correlation and convolution are the same; the handout shows where they differ.
// Sums are float32; the grader accepts any order of the additions within a stated tolerance.
//
// Students write the functions below (the numbered files of labs/convolution/); the kit (kit/)
// uploads the weights, composes the variants of kit/tables.cpp, and the grader checks them
// against its own reference.
#pragma once

#include "labkit/gpu_context.hpp"
#include "labkit/image.hpp"
#include "labkit/not_for_students.hpp"

namespace convolution {

using labkit::GpuContext;
using labkit::View;

using Input = View<const float>;
using Output = View<float>;

inline constexpr int kMaxFilterSize = 25;                             // the largest k
inline constexpr int kMaxRadius = kMaxFilterSize / 2;                  // 12
inline constexpr int kMaxWeights = kMaxFilterSize * kMaxFilterSize;    // 625 floats: 2.5 KB of constant memory
inline constexpr float kMinValue = 0.0f, kMaxValue = 255.0f;           // the output is clamped to this range

// What the image is outside its edges (a row "a b c d", radius 2):
//   zero       0 0 | a b c d | 0 0
//   replicate  a a | a b c d | d d     (clamp to the edge)
//   mirror     c b | a b c d | c b     (reflect WITHOUT repeating the edge pixel: OpenCV's
//                                       BORDER_REFLECT_101, numpy's 'reflect')
enum class Border { zero, replicate, mirror };

// The index that position i (any integer) of a row or column of n pixels reads: 0..n-1, or -1
// for a zero of the zero border. Mirror reflects as often as needed, so a radius larger than
// the image (a 25x25 filter on a 3x2 image) is still defined; a single pixel mirrors to itself.
LABKIT_HD inline int border_index(int i, int n, Border border) {
    if (i >= 0 && i < n) return i;
    if (border == Border::zero) return -1;
    if (border == Border::replicate) return i < 0 ? 0 : n - 1;
    if (n == 1) return 0;
    const int period = 2 * (n - 1);  // mirror: ... 2 1 | 0 1 ... n-1 | n-2 ... 1 | 0 1 ...
    int m = i % period;
    if (m < 0) m += period;
    return m < n ? m : period - m;
}

// The output's range: a sum outside [0, 255] is clamped (an edge filter's negative side is 0).
LABKIT_HD inline float clamp_pixel(float v) { return v < kMinValue ? kMinValue : (v > kMaxValue ? kMaxValue : v); }

struct Tuning {
    int block_x = 16;  // threads per block along x (the report this lab comes from used 16 x 16)
    int block_y = 16;  // and along y; the tables also sweep 32 x 8 and 32 x 32
};

// How the OpenMP loop hands out its iterations.
enum class Schedule { static_chunks, dynamic_chunks };

// ---- CPU ---------------------------------------------------------------------------------------
// The baseline, cpu-sequential, is the grader's reference (kit/reference.cpp): it is not linked
// with your code, and a call to it stops the build with this message.
LABKIT_NOT_FOR_STUDENTS("cpu_sequential is the grader's reference and is not linked with student code: write your own loops")
void cpu_sequential(Input in, Output out, const float* weights, int size, Border border);
// cpu_openmp.cpp: the same sum, the two pixel loops collapsed and shared among `threads` threads.
void cpu_openmp(Input in, Output out, const float* weights, int size, Border border, int threads, Schedule schedule);
// The expert tier (optional challenge, bonus points), cpu_openmp_expert.cpp: the same contract, as
// fast as the cores and their memory allow. As for 05 below, a separable filter also comes with
// its factors `row` and `column` (`size` floats each); both are nullptr for any other filter,
// which the k x k `weights` must then handle. threads >= 1.
void cpu_openmp_expert(Input in, Output out, const float* weights, const float* row, const float* column, int size,
                       Border border, int threads);

// ---- GPU ---------------------------------------------------------------------------------------
// `weights` below are host arrays (size * size floats, or size floats for a separable pass)
// unless a comment says device. Before each run the kit calls the file's set_weights_* function
// (outside the kernel-only timing, inside the end-to-end one), then its convolve function(s).

// 01_global.cu: one thread per output pixel; image and weights (a DEVICE array) in global memory.
void convolve_global(Input in, Output out, const float* device_weights, int size, Border border, const Tuning& tuning,
                     GpuContext& ctx);

// 02_constant.cu: the same, with the weights in this file's __constant__ array.
void set_weights_constant(const float* weights, int size, GpuContext& ctx);
void convolve_constant(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx);

// 03_shared_tiled.cu: each block loads its input tile plus a halo of r pixels into shared memory,
// once, then every thread reads its k x k neighbourhood from there. Weights in constant memory.
void set_weights_tiled(const float* weights, int size, GpuContext& ctx);
void convolve_tiled(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx);
// Experiment 3h, same file: the same sums, from a kernel compiled for each odd k (a template
// argument), so that its loops unroll and the weights' addresses are constants. Its weights
// are set_weights_tiled's; a size that is not an odd 1 to kMaxFilterSize is refused.
void convolve_tiled_unrolled(Input in, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx);

// 04_separable.cu: for K = column x row (box, Gaussian, Sobel): a row pass into `rows` (a float image of
// the input's size, NOT clamped), then a column pass from it into `out` (clamped). Each pass
// stages its tile plus a halo in shared memory. Both 1D weight arrays have `size` floats.
void set_weights_separable(const float* row, const float* column, int size, GpuContext& ctx);
void convolve_rows(Input in, Output rows, int size, Border border, const Tuning& tuning, GpuContext& ctx);
void convolve_columns(Input rows, Output out, int size, Border border, const Tuning& tuning, GpuContext& ctx);

// ---- The expert tier (optional challenge, bonus points) -----------------------------------------
// 05_expert.cu: every filter in ONE kernel launch, no intermediate image in global memory, as
// close to the roofs as you can get (8 B/px of memory; 2 k^2 FLOP/px direct, 4k separable).
// set_weights_expert is the setup (outside the kernel-only timing): the k x k weights, and for a
// separable filter its two factors (`size` floats each; both nullptr otherwise). convolve_expert
// then filters the image; `separable` is true only when the factors were given, and says the
// kernel may use them (the direct k x k sum must work for every filter).
void set_weights_expert(const float* weights, const float* row, const float* column, int size, GpuContext& ctx);
void convolve_expert(Input in, Output out, int size, bool separable, Border border, GpuContext& ctx);

}  // namespace convolution
