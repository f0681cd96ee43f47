// Lab 3's filter bank: named filters ("gaussian:5", "gaussian:sigma=2.0,size=9", "file:my.txt",
// ...), their weights in float32 as every variant uses them, and a user's filter read from a
// small text file. Shared by the grader and the runner (the case files carry the weights).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convolution.hpp"

namespace convolution {

struct Filter {
    std::string name;            // as the user wrote it: "gaussian:5", "file:my.txt"
    int size = 1;                // k, odd, 1..kMaxFilterSize
    std::vector<float> weights;  // k * k, row-major: K(dx, dy) = weights[(dy + r) * k + (dx + r)]
    // A separable filter (box, Gaussian, Sobel) also has its factors, with
    // weights[i * k + j] == float(column[i] * row[j]) exactly; empty for any other filter.
    std::vector<float> row, column;
    double sigma = 0;  // a Gaussian's (as its taps were made from it), 0 for any other filter

    bool separable() const { return !row.empty(); }
    double abs_sum() const;  // sum of |K|: the largest output a 0..255 input can reach, over 255
};

// A filter by its name; throws std::invalid_argument with a message that lists what exists.
Filter make_filter(std::string_view spec);
// k x k weights given directly (a user file's, a test's); throws std::invalid_argument.
Filter filter_from_weights(std::string name, int size, std::vector<float> weights);
// The user's filter file: k lines of k numbers, '#' comments, and an optional last line "/ D"
// that divides every weight by D. Errors name the file and the line.
Filter read_filter_file(const std::string& path);

// What `--filter` accepts, for --help and error messages.
inline constexpr std::string_view kFilterHelp =
    "box:K, gaussian:K, gaussian:sigma=S[,size=K], gaussian-int:3|5 (the integer /16 and /256 kernels), disk:K (not separable), "
    "sharpen:3|5, edge:3|5 (Sobel, x direction), laplacian:3|5, file:PATH (K odd, 1..25)";

Border parse_border(std::string_view name);  // zero | replicate | mirror; throws std::invalid_argument
std::string_view border_name(Border b);

}  // namespace convolution
