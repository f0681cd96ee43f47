// Kit-internal declarations shared by the grader (grade.cpp), the GPU runner and `run`.
// Not part of the student interface.
#pragma once

#include <array>
#include <cstdint>

namespace integral_image {

// Outputs are filled with this before every run, so an element nobody wrote is caught.
// cudaMemset writes bytes: 0xA5 in every byte makes the uint32 poison 0xA5A5A5A5.
inline constexpr int kPoisonByte = 0xA5;
inline constexpr std::uint32_t kPoison = 0xA5A5A5A5u;

inline constexpr int kPasses = 4;
// Bytes each pass must move per pixel: read its input once, write its output once.
inline constexpr std::array<double, kPasses> kPassBytesPerPixel = {1 + 4, 4 + 4, 4 + 4, 4 + 4};
inline constexpr double kPipelineBytesPerPixel = 1 + 4 + 3 * (4 + 4);  // 29: the four passes' traffic
inline constexpr double kMinBytesPerPixel = 1 + 4;  // read the image once, write the table once
inline constexpr double kTransposeBytesPerPixel = 4 + 4;
inline constexpr std::array<const char*, kPasses> kPassNames = {"scan rows", "transpose", "scan rows", "transpose back"};

int grade_main(int argc, char** argv);
int run_main(int argc, char** argv);

}  // namespace integral_image
