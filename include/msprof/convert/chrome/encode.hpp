// SPDX-License-Identifier: MIT
// The encoder of the chrome form: one planned event, metadata event or flow
// as JSON, the otherData object, and the text around the events.
#ifndef MSPROF_CONVERT_CHROME_ENCODE_HPP
#define MSPROF_CONVERT_CHROME_ENCODE_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../../core/abi.hpp"
#include "plan.hpp"
#include "types.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

/// Encodes one X/I/C event (no separator).
void encode_event(std::string& out, const plan& p, std::uint32_t i, stats& st);

/// Encodes an M event; every M has args (DevTools fails the trace without).
void encode_meta(std::string& out, const plan& p, std::uint32_t i, stats& st);

/// Encodes the s and f events of a flow, joined by ",\n".
void encode_flow(std::string& out, const plan& p, const flow_ref& f, stats& st);

/// The otherData object of part `part_no` (0-based) of the parts `names`:
/// generator, time origin, the counts of `st`, and the parts list when split.
std::string other_data(const plan& p, const stats& st, std::int64_t session_start_ns, std::size_t part_no,
                       const std::vector<std::string>& names);

/// The text before the events, and after them around otherData.
inline constexpr std::string_view head = "{\"traceEvents\":[\n";
inline constexpr std::string_view tail_open = "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":";
inline constexpr std::string_view tail_close = "}\n";

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_ENCODE_HPP
