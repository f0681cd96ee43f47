// main() for the GPU test programs: without a CUDA device they print why and exit 77, which
// Meson counts as skipped — never as passed.
#if LABKIT_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstdio>

#include "labkit/device_info.hpp"

namespace {
constexpr int kMesonSkip = 77;
}

int main(int argc, char** argv) {
    const auto device = labkit::query_device();
    if (!device.available) {
        std::printf("skipped: %s\n", device.unavailable_reason.c_str());
        return kMesonSkip;
    }
    std::printf("GPU: %s\n", device.name.c_str());
    return Catch::Session().run(argc, argv);
}
