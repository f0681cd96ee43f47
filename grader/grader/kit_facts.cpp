// The kit's facts as JSON (kit_facts.hpp).
#include "kit_facts.hpp"

#include <string_view>

#include "cases.hpp"
#include "labkit/gpu_limits.hpp"
#include "labkit/timing.hpp"
#include "protocol.hpp"
#include "sandbox.hpp"
#include "verdict.hpp"

namespace grader {
namespace {

using nlohmann::ordered_json;
using protocol::Status;

// Every Status by the name of its enumerator: the stringized name is the compiler's, so a renamed
// or removed enumerator stops this file compiling.
#define LABKIT_VERDICT(e) std::pair<std::string_view, Status>{#e, Status::e}
constexpr std::pair<std::string_view, Status> kStatuses[] = {
    LABKIT_VERDICT(pass), LABKIT_VERDICT(pass_emulated), LABKIT_VERDICT(fail),
    LABKIT_VERDICT(todo), LABKIT_VERDICT(not_run),       LABKIT_VERDICT(skipped),
    LABKIT_VERDICT(timeout), LABKIT_VERDICT(crash),      LABKIT_VERDICT(error),
};
#undef LABKIT_VERDICT
// Counted to the last enumerator: one missing above fails here (a Status added after `error` moves
// this check to it).
static_assert(std::size(kStatuses) == static_cast<std::size_t>(Status::error) + 1,
              "list every protocol::Status in kStatuses");

ordered_json verdicts() {
    ordered_json out = ordered_json::object();
    for (const auto& [enumerator, s] : kStatuses)
        out[std::string(enumerator)] = {{"name", protocol::status_name(s)},
                                        {"label", protocol::status_label(s)},
                                        {"failure", protocol::is_failure(s)}};
    return out;
}

template <std::size_t N>
ordered_json strings(const char* const (&items)[N]) {
    ordered_json out = ordered_json::array();
    for (const char* s : items) out.push_back(s);
    return out;
}

ordered_json sandbox() {
    return {{"uid", protocol::kSandboxUid},
            {"gid", protocol::kSandboxGid},
            {"system_dirs", strings(protocol::kSystemDirs)},
            {"etc_kept", strings(protocol::kEtcKept)},
            {"isolation", strings(protocol::kIsolation)},
            {"fresh_system", strings(protocol::kFreshSystem)},
            {"read_only_last", strings(protocol::kReadOnlyLast)}};
}

}  // namespace

ordered_json protocol_facts() {
    using protocol::RawHeader;
    // The header is the magic, then 32-bit unsigned fields, little-endian on every GPU host.
    static_assert(sizeof(RawHeader) == sizeof(RawHeader::magic) + 4 * sizeof(std::uint32_t));
    ordered_json perf = ordered_json::array();
    for (const std::string_view f : protocol::kPerfFields) perf.push_back(f);
    return {{"raw_header",
             {{"magic", std::string(protocol::kRawMagic, sizeof protocol::kRawMagic - 1)},
              {"magic_bytes", sizeof protocol::kRawMagic},
              {"u32_fields", {"width", "height", "elem_size", "reserved"}},
              {"bytes", sizeof(RawHeader)}}},
            {"answer_name", {{"digits", protocol::kAnswerDigits}, {"suffix", protocol::kAnswerSuffix}}},
            {"perf_fields", perf},
            {"run_policy",
             {{"min_runs", labkit::RunPolicy::kMinRuns},
              {"max_runs", labkit::RunPolicy::kMaxRuns},
              {"target_ms", labkit::RunPolicy::kTargetMs}}}};
}

namespace {

ordered_json gpu_limits() {
    ordered_json optin = ordered_json::object();
    for (const auto& a : labkit::kArchLimits) optin[std::to_string(a.sm)] = a.max_shared_optin;
    return {{"oldest_cc", labkit::kOldestCc},
            {"max_threads_per_block", labkit::kMaxThreadsPerBlock},
            {"max_block", {labkit::kMaxBlockX, labkit::kMaxBlockY, labkit::kMaxBlockZ}},
            {"max_grid", {labkit::kMaxGridX, labkit::kMaxGridYZ, labkit::kMaxGridYZ}},
            {"default_dynamic_shared_bytes", labkit::kDefaultDynamicSharedBytes},
            {"max_registers_per_block", labkit::kMaxRegistersPerBlock},
            {"register_allocation_unit", labkit::kRegisterAllocationUnit},
            {"max_shared_optin_by_sm", optin}};
}

}  // namespace

ordered_json kit_facts() {
    return {
        {"generated", "by labkit-facts (grader/grader/facts.cpp) from the headers that define these facts; "
                      "do not edit: the test 'kit facts' says how to write it again"},
        {"verdicts", verdicts()},
        {"sandbox", sandbox()},
        {"protocol", protocol_facts()},
        {"gpu_limits", gpu_limits()},
        {"timed_sizes", protocol::kDefaultPerfSizes},
    };
}

}  // namespace grader
