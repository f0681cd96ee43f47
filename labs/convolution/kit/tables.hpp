// Lab 3's variant table, in teaching order. The grader (through the runner), the tests and the
// benchmarks all enumerate it.
#pragma once

#include <span>

#include "contract.hpp"

namespace convolution {

std::span<const protocol::Variant<Convolution>> variants();
// The libraries' rows (kit/peers.cu: NPP), in the solution's runner only; none where the toolkit
// has no NPP.
std::span<const protocol::Variant<Convolution>> peer_variants();

}  // namespace convolution
