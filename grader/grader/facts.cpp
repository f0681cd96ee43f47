// labkit-facts: the kit's facts that Python needs, as JSON on stdout (kit_facts.hpp says which, and
// where they are kept).
//   labkit-facts
#include <iostream>

#include "kit_facts.hpp"

int main() {
    constexpr int kIndent = 2;
    std::cout << grader::kit_facts().dump(kIndent) << '\n';
    return std::cout ? 0 : 1;
}
