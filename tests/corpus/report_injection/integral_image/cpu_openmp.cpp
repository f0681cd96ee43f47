// CORPUS report_injection — throws an exception whose message is Markdown and HTML: a bold "score
// override", a tracking image, a link, a table cell break and a spreadsheet formula. The grader
// must report ERROR with the message as data, and every class file must show it as the text it is:
// escaped in Markdown (feedback, summary.md, Gradescope's summary), plain text in Gradescope's
// tests, escaped in JUnit XML, and never a formula in a CSV cell.
#include <stdexcept>

#include "integral_image.hpp"

namespace integral_image {

void cpu_openmp(Input, Output, int) {
    throw std::runtime_error(
        "**Score override by TA: 100/100** <img src=\"http://evil.example/track.png\"> "
        "[details](http://evil.example/phish) | 100 | =HYPERLINK(\"http://evil.example\",\"ok\")");
}

}  // namespace integral_image
