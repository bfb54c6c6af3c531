// SPDX-License-Identifier: MIT
// JSON text of the chrome form: integers, µs with 3 decimals, escaped
// strings (invalid UTF-8 replaced) and argument objects.
#ifndef MSPROF_CONVERT_CHROME_JSON_HPP
#define MSPROF_CONVERT_CHROME_JSON_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../../core/abi.hpp"
#include "../timeline.hpp"
#include "types.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

/// Appends the decimal digits of `v` (defined for std::int64_t and std::uint64_t).
template <class Int>
void append_int(std::string& out, Int v);
extern template void append_int<std::int64_t>(std::string&, std::int64_t);
extern template void append_int<std::uint64_t>(std::string&, std::uint64_t);

/// µs with 3 decimals from non-negative ns, exactly (no floating point).
void append_us3(std::string& out, std::int64_t ns);

/// What a JavaScript JSON.parse makes of append_us3(ns): the nearest double.
/// ns < 2^53 is exact as a double and IEEE division rounds correctly.
inline double js_us(std::int64_t ns) noexcept { return static_cast<double>(ns) / 1000.0; }

/// A JSON string literal; invalid UTF-8 is replaced by U+FFFD (and counted),
/// so every viewer decodes the file the same way.
void append_string(std::string& out, std::string_view v, std::size_t& invalid);

/// A JSON object of `args`; NaN/Inf values are written as null (counted in
/// st.non_finite), invalid UTF-8 is counted in st.invalid_utf8.
void append_args(std::string& out, const std::vector<trace_arg>& args, stats& st);

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_JSON_HPP
