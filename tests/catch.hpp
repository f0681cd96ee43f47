// Catch2 v2 (one header) or v3 (split headers): the tests include this and use only what both
// have, plus two spellings that differ between them: contains_text() and approx().
#pragma once
#include <string>
#if LABKIT_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
inline auto contains_text(const std::string& s) { return Catch::Matchers::ContainsSubstring(s); }
inline auto approx(double v) { return Catch::Approx(v); }
#else
#include <catch2/catch.hpp>
inline auto contains_text(const std::string& s) { return Catch::Matchers::Contains(s); }
inline auto approx(double v) { return Approx(v); }
#endif
