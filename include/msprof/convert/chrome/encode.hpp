// SPDX-License-Identifier: MIT
// The encoder of the chrome form: names, the otherData object, and the text
// around the events (the events themselves: stream.cpp).
#ifndef MSPROF_CONVERT_CHROME_ENCODE_HPP
#define MSPROF_CONVERT_CHROME_ENCODE_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../../core/abi.hpp"
#include "types.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

/// A slice/counter/flow name as a JSON string; reserved Chrome names get U+200B appended.
void append_name(std::string& out, std::string_view name, stats& st);

/// The otherData object of part `part_no` (0-based) of the parts `names`:
/// generator, time origin, the counts of `st`, and the parts list when split.
std::string other_data(std::int64_t origin_ns, const stats& st, std::int64_t session_start_ns, std::size_t part_no,
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
