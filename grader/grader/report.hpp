// Every way a grading run's results are shown: terminal tables, Markdown, CSV and JSON.
// Lab-independent: the tables come from the exercises' info (reference, bytes, stages).
#pragma once

#include <string>

#include "results.hpp"

namespace grader {

// This side is built on what both sides share (grader/protocol/), named unqualified here.
using namespace protocol;

void print_environment(const Report& r);
void print_correctness(const Report& r);
void print_performance(const Report& r);
// After timing: variants whose timed runs gave wrong outputs (now FAIL), and flagged timings.
void print_timing_verdicts(const Report& r);
void write_files(const Report& r, const std::string& json, const std::string& csv, const std::string& markdown);

}  // namespace grader
