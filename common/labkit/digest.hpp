// The digest of an image's elements: what a runner sends instead of a large answer file, where
// the comparison is exact. The grader computes the expected output's digest on the host; the
// runner computes its output's on the device (labkit::device_digest, image_pool.hpp), where the
// output already is, so that an 8192^2 answer costs no copy to the host, no file and no read.
//
// The digest is the sum, mod 2^64, of one term per element: a 64-bit mix (splitmix64's
// finalizer, a bijection) of the element's bits xor its row-major index times an odd constant.
// For elements of at most 4 bytes, the index decides the high 32 bits of what is mixed, so two
// different images always give different multisets of terms, and equal sums happen by chance
// only (about 2^-64). The sum needs no order, so every thread of a kernel adds its own terms.
// It is a check for honest mistakes, not a secret: the runner never learns the expected digest,
// so sending the right one still means computing the right output.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define LABKIT_HOST_DEVICE __host__ __device__
#else
#define LABKIT_HOST_DEVICE
#endif

namespace labkit {

inline constexpr std::uint64_t kDigestIndexMul = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio, odd

LABKIT_HOST_DEVICE inline std::uint64_t digest_term(std::uint64_t index, std::uint64_t bits) {
    std::uint64_t x = bits ^ (index * kDigestIndexMul);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

// The digest of a width x height image of `elem_size`-byte elements (1, 2, 4 or 8), rows
// `pitch_elems` apart, in host memory.
std::uint64_t host_digest(const void* data, std::size_t elem_size, int width, int height, std::size_t pitch_elems);

}  // namespace labkit
