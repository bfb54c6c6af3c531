// SPDX-License-Identifier: MIT
// Number and string formatting exactly as msprof's exporters print them
// (definitions of text.hpp).
#include "msprof/convert/text.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "msprof/core/json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

void append_ts_us(std::string& out, std::int64_t ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  const auto us = static_cast<std::uint64_t>(ns) / 1000u;
  const auto frac = static_cast<unsigned>(static_cast<std::uint64_t>(ns) % 1000u);
  fmt::format_to(std::back_inserter(out), "{}.{:03d}", us, frac);
}
std::string ts_us(std::int64_t ns) {
  std::string s;
  append_ts_us(s, ns);
  return s;
}

std::string py_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string dur_us_json(std::int64_t ns) { return py_float(static_cast<double>(ns) / 1000.0); }

std::string dur_us_fixed3(std::int64_t ns) {
  return fmt::format("{:.3f}", static_cast<double>(ns) / 1000.0);
}

std::string fewest3(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string round3_py(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (s.size() > 2 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  if (s == "-0.0") s = "0.0";
  return s;
}

void append_csv_cell(std::string& out, std::string_view v) {
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

void append_json_escaped(std::string& out, std::string_view v) { json::append_escaped(out, v); }

void append_json_string(std::string& out, std::string_view v) {
  out += '"';
  append_json_escaped(out, v);
  out += '"';
}

}  // namespace convert
MSPROF_END_NAMESPACE
