// CORPUS huge_exception_message — throws an exception whose message is 200 KiB long. A report
// line over the grader's 64 KiB cap used to be dropped whole, so the runner's error never
// arrived and the student read "the runner exited with status 3". The grader must report ERROR
// with the start of the message and a note of how much was cut.
#include <stdexcept>
#include <string>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    constexpr std::size_t kLength = 200 << 10;
    throw std::runtime_error("the start of a long story: " + std::string(kLength, 'x'));
}

}  // namespace integral_image
