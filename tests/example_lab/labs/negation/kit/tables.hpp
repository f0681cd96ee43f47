// The example lab's variant table, in teaching order.
#pragma once

#include <span>

#include "contract.hpp"

namespace negation {

std::span<const protocol::Variant<Negation>> variants();

}  // namespace negation
