// How the grader and the runner keep their large host images: a freed image's memory stays in the
// process for the next one. Every timed run draws a fresh input (8192^2 floats: 256 MiB) and the
// grader reads each checked output into a new image; glibc hands blocks that large back to the
// kernel on free (mmap/munmap), so that each new one paid its page faults again, in system time.
// With this, the checks beside the runner (grader/grader/grade.cpp) and the timed buffers kept
// across measurements (grader/runner/runner.hpp), seven Lab 3 variants timed at 8192^2 took 58 s
// instead of 127 s, 23 s of it system time instead of 53 s (measurements/bench-speed-H100-2026-11-27.md).
// A process keeps the most it once needed until it ends: a runner with its variant, the grader with
// its grading.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace labkit {

inline void keep_freed_memory() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_MAX, 0);               // large blocks from the heap, not from mmap ...
    mallopt(M_TRIM_THRESHOLD, -1);        // ... and the heap never trimmed back (-1: no threshold)
#endif
}

}  // namespace labkit
