// CORPUS invalid_utf8_in_exception — throws an exception whose message holds bytes that are not
// UTF-8 (a lone 0xFF, a cut multi-byte sequence, an overlong slash). The grader's JSON report
// refused them: the whole lab scored 0, passes included, and the student read that the grader
// ended without a report. The grader must report ERROR for this variant alone, with the bytes
// replaced (U+FFFD), and write its reports.
#include <stdexcept>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    throw std::runtime_error("bad bytes: \xff here, \xe2\x82 cut, \xc0\xaf overlong; the end");
}

}  // namespace integral_image
