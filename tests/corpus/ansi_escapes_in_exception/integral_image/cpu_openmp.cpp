// CORPUS ansi_escapes_in_exception — throws an exception whose message is terminal escape
// sequences (clear the screen, red text, a fake "all passed" banner, cursor moves). The grader
// must report ERROR, and no ESC (0x1b) character may reach its reports or the class files:
// the message is shown as plain text.
#include <stdexcept>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    throw std::runtime_error("\x1b[2J\x1b[H\x1b[31mcpu-openmp 31/31 PASS\x1b[0m\x1b]0;all passed\x07\r\x1b[1A\x1b[K");
}

}  // namespace integral_image
