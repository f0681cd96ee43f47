// The GPU test programs (main(): catch_session.cpp): without a CUDA device they print why and exit
// 77, which Meson counts as skipped — never as passed.
#include <cstdio>

#include "labkit/device_info.hpp"
#include "test_main.hpp"

namespace {
constexpr int kMesonSkip = 77;
}

int labkit_test::exit_before_tests() {
    const auto device = labkit::query_device();
    if (!device.available) {
        std::printf("skipped: %s\n", device.unavailable_reason.c_str());
        return kMesonSkip;
    }
    std::printf("GPU: %s\n", device.name.c_str());
    return kRunTests;
}
