// Catch2 v2 (one header) or v3 (split headers): the tests include this and use only what both have.
#pragma once
#if LABKIT_CATCH2_MAJOR >= 3
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#else
#include <catch2/catch.hpp>
#endif
