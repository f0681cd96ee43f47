// The CPU test programs run their tests on every machine (main(): catch_session.cpp).
#include "test_main.hpp"

int labkit_test::exit_before_tests() { return kRunTests; }
