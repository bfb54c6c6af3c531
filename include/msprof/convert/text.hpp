// SPDX-License-Identifier: MIT
// Number and string formatting exactly as msprof's exporters print them
// (ts strings with 3 decimals, "fewest digits" statistics, CSV quoting).
#ifndef MSPROF_CONVERT_TEXT_HPP
#define MSPROF_CONVERT_TEXT_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Local ns -> "1767268800000200.000" (µs with exactly 3 decimals, no rounding:
/// msprof inserts a dot into the ns integer).
inline void append_ts_us(std::string& out, std::int64_t ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  const auto us = static_cast<std::uint64_t>(ns) / 1000u;
  const auto frac = static_cast<unsigned>(static_cast<std::uint64_t>(ns) % 1000u);
  fmt::format_to(std::back_inserter(out), "{}.{:03d}", us, frac);
}
inline std::string ts_us(std::int64_t ns) {
  std::string s;
  append_ts_us(s, ns);
  return s;
}

/// Shortest round-trip form of a double, always with a decimal point
/// (Python's repr: 40.0, 60.5).
inline std::string py_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

/// A duration in ns as a JSON number in µs ("40.0", "60.5").
inline std::string dur_us_json(std::int64_t ns) { return py_float(static_cast<double>(ns) / 1000.0); }

/// A duration in ns as "40.000".
inline std::string dur_us_fixed3(std::int64_t ns) {
  return fmt::format("{:.3f}", static_cast<double>(ns) / 1000.0);
}

/// Rounded to 3 decimals, trailing zeros removed, integer values without a
/// point ("100.5", "40", "46.636") - op_statistic/api_statistic cells.
inline std::string fewest3(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

/// Rounded to 3 decimals, but keeping one decimal ("16.0", "0.013") - PMU cells.
inline std::string round3_py(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (s.size() > 2 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  if (s == "-0.0") s = "0.0";
  return s;
}

/// One CSV cell: quoted (with doubled quotes) when it holds , " or a newline.
inline void append_csv_cell(std::string& out, std::string_view v) {
  // A plain loop: find_first_of searched the 4-character set once per character.
  const bool plain =
      std::none_of(v.begin(), v.end(), [](char c) { return c == ',' || c == '"' || c == '\n' || c == '\r'; });
  if (plain) {
    out.append(v.data(), v.size());
    return;
  }
  out += '"';
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

/// The inside of a JSON string literal (UTF-8 passed through; control chars
/// escaped). Plain runs are appended whole: names are long and rarely need escaping.
inline void append_json_escaped(std::string& out, std::string_view v) {
  std::size_t plain = 0;  // start of the run not appended yet
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(v.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
    }
  }
  out.append(v.data() + plain, v.size() - plain);
}

/// JSON string literal.
inline void append_json_string(std::string& out, std::string_view v) {
  out += '"';
  append_json_escaped(out, v);
  out += '"';
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_TEXT_HPP
