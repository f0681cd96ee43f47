// The kit's facts that Python needs, as JSON, from the C++ that defines them, so that no Python file
// reads a C++ header (issue 51):
//   verdicts    each Status of verdict.hpp by enumerator: its name, its label, whether it fails
//   sandbox     sandbox.hpp's uid and gid inside, the system every sandbox sees, bwrap's options
//   protocol    protocol.hpp's raw-file header, answer-file names and perf-line fields, and
//               timing.hpp's run policy: what the Python track's runner writes and does alike
//   gpu_limits  gpu_limits.hpp: the launch limits and each architecture's shared-memory opt-in
//   timed_sizes cases.hpp: the square sizes grade times by default
// labkit-facts prints kit_facts(); its output is kept in git as grader/grader/kit_facts.json,
// which labkit (cli/) and the kit's tools read before anything is built (setup, configure, --help),
// and the test 'kit facts' fails when the two differ. The grader hands protocol_facts() to the
// Python track's runner with its files (session.cpp): the runner takes the protocol from the
// grader that speaks it.
#pragma once

#include <nlohmann/json.hpp>

namespace grader {

nlohmann::ordered_json kit_facts();
nlohmann::ordered_json protocol_facts();

}  // namespace grader
