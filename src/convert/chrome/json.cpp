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
using namespace std::string_view_literals;

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
        case '"': out += "\\\""sv; break;
        case '\\': out += "\\\\"sv; break;
        case '\n': out += "\\n"sv; break;
        case '\r': out += "\\r"sv; break;
        case '\t': out += "\\t"sv; break;
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

void arg_writer::key(std::string_view k) {
  *out_ += open_ ? ","sv : ",\"args\":{"sv;
  open_ = true;
  append_string(*out_, k, st_->invalid_utf8);
  *out_ += ':';
}

void arg_writer::num(std::string_view k, std::int64_t v) {
  key(k);
  append_int(*out_, v);
}

void arg_writer::real(std::string_view k, double v) {
  key(k);
  if (std::isfinite(v)) {
    fmt::format_to(std::back_inserter(*out_), "{}", v);
  } else {
    *out_ += "null"sv;
    ++st_->non_finite;
  }
}

void arg_writer::str(std::string_view k, std::string_view v) {
  key(k);
  append_string(*out_, v, st_->invalid_utf8);
}

void arg_writer::close(bool always) {
  if (!open_ && always) *out_ += ",\"args\":{"sv;
  if (open_ || always) *out_ += '}';
  open_ = false;
}

void append_args(std::string& out, const std::vector<trace_arg>& args, stats& st, bool always) {
  arg_writer w(out, st);
  for (const auto& a : args) {
    switch (a.k) {
      case trace_arg::kind::integer: w.num(a.key, a.i); break;
      case trace_arg::kind::real: w.real(a.key, a.d); break;
      case trace_arg::kind::string: w.str(a.key, a.s); break;
    }
  }
  w.close(always);
}

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
