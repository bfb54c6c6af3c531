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

/// Writes an event's args one at a time, as `,"args":{...}` (nothing when
/// there are none): NaN/Inf values are written as null (counted in
/// st.non_finite), invalid UTF-8 is counted in st.invalid_utf8.
class arg_writer {
 public:
  arg_writer(std::string& out, stats& st) noexcept : out_(&out), st_(&st) {}
  void num(std::string_view key, std::int64_t v);
  void real(std::string_view key, double v);
  void str(std::string_view key, std::string_view v);
  /// Closes the object; `always`: `,"args":{}` when there were no args.
  void close(bool always = false);

 private:
  void key(std::string_view k);
  std::string* out_;
  stats* st_;
  bool open_ = false;
};

/// The args of a trace_event through an arg_writer (`,"args":{...}`, or nothing when empty and not `always`).
void append_args(std::string& out, const std::vector<trace_arg>& args, stats& st, bool always = false);

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_JSON_HPP
