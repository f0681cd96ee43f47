// The example lab — image negation: the one interface every file of the lab shares.
//
// Contract: in and out are 8-bit gray W x H images; out(x, y) = 255 - in(x, y).
//
// The smallest lab there is, kept under tests/example_lab/ and built only by its test
// (tests/example_lab_selftest.py): it shows that a lab is its folders and one line of the
// top-level meson.build (docs/adding_a_lab.md).
#pragma once

#include <cstdint>

#include "labkit/gpu_context.hpp"
#include "labkit/image.hpp"
#include "labkit/not_for_students.hpp"

namespace negation {

using labkit::GpuContext;
using labkit::View;

using Input = View<const std::uint8_t>;
using Output = View<std::uint8_t>;

inline constexpr std::uint8_t kWhite = 255;  // the negative of v is kWhite - v

// The baseline, cpu-sequential, is the grader's reference (kit/reference.cpp): it is not linked
// with your code, and a call to it stops the build with this message.
LABKIT_NOT_FOR_STUDENTS("cpu_sequential is the grader's reference and is not linked with student code: write your own loop")
void cpu_sequential(Input in, Output out);

// cpu_openmp.cpp: rows shared among `threads` threads. threads >= 1.
void cpu_openmp(Input in, Output out, int threads);

#if LABKIT_HAVE_CUDA
// 01_negate.cu: one thread per pixel, on ctx.stream. in and out are device images.
void negate(Input in, Output out, GpuContext& ctx);
#endif

}  // namespace negation
