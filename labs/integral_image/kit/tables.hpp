// Lab 1's variant tables, in teaching order: the integral image, the transpose exercise, and
// the expert tier's 64-bit and exclusive tables.
// The grader (through the runner), the tests and the benchmarks all enumerate these tables.
#pragma once

#include <span>

#include "contract.hpp"

namespace integral_image {

std::span<const protocol::Variant<IntegralImage>> variants();
// The libraries' version of the main exercise (kit/peers.cu), in the solution's runner only.
std::span<const protocol::Variant<IntegralImage>> peer_variants();
std::span<const protocol::Variant<Transpose>> transpose_variants();
std::span<const protocol::Variant<IntegralImage64>> variants_64();
std::span<const protocol::Variant<IntegralImageExclusive>> exclusive_variants();

}  // namespace integral_image
