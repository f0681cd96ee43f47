// One list of everything the grader can check and time: the variants of the integral image and
// the transpose exercise, with how to run each one. Kit-internal.
#pragma once

#include <string>
#include <vector>

#include "integral_image.hpp"

namespace integral_image {

enum class EntryKind { cpu, gpu, transpose };

struct Entry {
    std::string name;
    std::string summary;
    EntryKind kind;
    const Variant* variant = nullptr;             // cpu and gpu entries
    const TransposeVariant* transpose = nullptr;  // transpose entries
};

std::vector<Entry> all_entries();
const char* kind_name(EntryKind k);

}  // namespace integral_image
