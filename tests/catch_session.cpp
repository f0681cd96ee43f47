// main() of every test program, with Catch2 v2's implementation (its single header compiled with
// CATCH_CONFIG_RUNNER: about 25 s of compile on the CI machine), compiled once. Each program links
// catch_main.cpp or catch_main_gpu.cpp beside it, which says whether its tests may run here.
#if LABKIT_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include "test_main.hpp"

int main(int argc, char** argv) {
    const int status = labkit_test::exit_before_tests();
    if (status != labkit_test::kRunTests) {
        return status;
    }
    return Catch::Session().run(argc, argv);
}
