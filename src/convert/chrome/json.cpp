// SPDX-License-Identifier: MIT
// JSON text of the chrome form: numbers, escaped strings, argument objects
// (include/msprof/convert/chrome/json.hpp).
#include "msprof/convert/chrome/json.hpp"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "msprof/core/json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

template <class Int>
void append_int(std::string& out, Int v) {
  const fmt::format_int f(v);
  out.append(f.data(), f.size());
}

template void append_int<std::int64_t>(std::string&, std::int64_t);
template void append_int<std::uint64_t>(std::string&, std::uint64_t);

void append_us3(std::string& out, std::int64_t ns) {
  const auto u = static_cast<std::uint64_t>(ns);
  append_int(out, u / 1000u);
  const auto frac = static_cast<unsigned>(u % 1000u);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  out.append(digits, 4);
}

void append_string(std::string& out, std::string_view v, std::size_t& invalid) {
  out += '"';
  bool bad = false;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n;) {
    // Fast path: a run of printable ASCII that needs no escape.
    std::size_t j = i;
    while (j < n && p[j] >= 0x20 && p[j] < 0x80 && p[j] != '"' && p[j] != '\\') ++j;
    if (j != i) {
      out.append(v.data() + i, j - i);
      i = j;
      if (i == n) break;
    }
    const unsigned c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20) {
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Multi-byte sequence: the one UTF-8 rule of every output (core/json.hpp).
    const std::size_t len = json::utf8_length(v, i);
    if (len != 0) {
      out.append(v.data() + i, len);
      i += len;
    } else {
      out += json::utf8_replacement;
      bad = true;
      ++i;
    }
  }
  out += '"';
  if (bad) ++invalid;
}

void append_args(std::string& out, const std::vector<trace_arg>& args, stats& st) {
  out += '{';
  bool first = true;
  for (const auto& a : args) {
    if (!first) out += ',';
    first = false;
    append_string(out, a.key, st.invalid_utf8);
    out += ':';
    switch (a.k) {
      case trace_arg::kind::integer: append_int(out, a.i); break;
      case trace_arg::kind::real:
        if (std::isfinite(a.d)) {
          fmt::format_to(std::back_inserter(out), "{}", a.d);
        } else {
          out += "null";
          ++st.non_finite;
        }
        break;
      case trace_arg::kind::string: append_string(out, a.s, st.invalid_utf8); break;
    }
  }
  out += '}';
}

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
