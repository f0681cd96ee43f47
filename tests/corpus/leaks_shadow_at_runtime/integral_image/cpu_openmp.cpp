// CORPUS leaks_shadow_at_runtime — reads the first line of /etc/shadow while it runs and puts it
// into an exception message, which the grader copies into the verdict's detail and the class
// files. The sandbox runs it as an unprivileged user (and /etc/shadow is not readable there):
// ERROR, and no line of the file ("root:") in any report.
#include <fstream>
#include <stdexcept>
#include <string>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    std::ifstream shadow("/etc/shadow");
    std::string line;
    if (std::getline(shadow, line)) throw std::runtime_error("found this: " + line);
    throw std::runtime_error("/etc/shadow is not readable here");
}

}  // namespace integral_image
