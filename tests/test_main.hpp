// What a test program checks before its tests run: catch_session.cpp's main() asks, and each test
// program links one answer (catch_main.cpp: every machine; catch_main_gpu.cpp: a CUDA device).
#pragma once

namespace labkit_test {
// The exit status to stop with before any test runs (77: Meson's "skipped"), or kRunTests.
constexpr int kRunTests = -1;
int exit_before_tests();
}  // namespace labkit_test
