// Lab 2's variant table, in teaching order. The grader (through the runner), the tests and the
// benchmarks all enumerate it.
#pragma once

#include <span>

#include "contract.hpp"

namespace histogram_equalization {

std::span<const protocol::Variant<HistogramEqualization>> variants();
// The libraries' version of the same contract (kit/peers.cu), in the solution's runner only.
std::span<const protocol::Variant<HistogramEqualization>> peer_variants();

}  // namespace histogram_equalization
