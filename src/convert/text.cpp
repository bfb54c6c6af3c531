// SPDX-License-Identifier: MIT
// Number and string formatting exactly as msprof's exporters print them
// (definitions of text.hpp).
#include "msprof/convert/text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "msprof/core/json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

char* put_u64(char* p, std::uint64_t v) {
  // The digits counted first, then written in place from the last: no copy.
  // Two digits per division: timestamps have 16 digits, and the exports print
  // several numbers per record.
  static constexpr auto pow10 = [] {
    std::array<std::uint64_t, 20> t{};
    std::uint64_t x = 1;
    for (auto& e : t) {
      e = x;
      x *= 10;  // the last product wraps, unused
    }
    return t;
  }();
  static constexpr char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  // floor(log10(2^bits)) from the bit length (1233 / 4096 ~ log10(2)), then one compare.
  const int bits = 64 - __builtin_clzll(v | 1);
  const auto t = static_cast<std::size_t>(bits * 1233) >> 12;
  char* const end = p + t + ((v | 1) >= pow10[t] ? 1 : 0);
  char* b = end;
  while (v >= 100) {
    const auto k = static_cast<std::size_t>(v % 100) * 2;
    v /= 100;
    *--b = pairs[k + 1];
    *--b = pairs[k];
  }
  if (v >= 10) {
    const auto k = static_cast<std::size_t>(v) * 2;
    *--b = pairs[k + 1];
    *--b = pairs[k];
  } else {
    *--b = static_cast<char>('0' + v);
  }
  return end;
}

void append_u64(std::string& out, std::uint64_t v) {
  char buf[24];
  out.append(buf, static_cast<std::size_t>(put_u64(buf, v) - buf));
}

char* put_ts_us(char* p, std::int64_t ns) {
  if (ns < 0) *p++ = '-';
  // Through unsigned: -INT64_MIN does not fit an int64. "<n / 1000>.ddd".
  const std::uint64_t n = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  p = put_u64(p, n / 1000u);
  const auto f = static_cast<unsigned>(n % 1000u);
  *p++ = '.';
  *p++ = static_cast<char>('0' + f / 100);
  *p++ = static_cast<char>('0' + f / 10 % 10);
  *p++ = static_cast<char>('0' + f % 10);
  return p;
}

void append_ts_us(std::string& out, std::int64_t ns) {
  char buf[24];
  out.append(buf, static_cast<std::size_t>(put_ts_us(buf, ns) - buf));
}
std::string ts_us(std::int64_t ns) {
  std::string s;
  append_ts_us(s, ns);
  return s;
}

std::string py_float(double v) {
  char buf[48];  // the shortest text of a double is at most 24 characters
  char* end = fmt::format_to(buf, FMT_COMPILE("{}"), v);
  if (std::find_if(buf, end, [](char c) { return c == '.' || c == 'e' || c == 'n'; }) == end) {
    *end++ = '.';
    *end++ = '0';
  }
  return std::string(buf, end);
}

double py_round_value(double v, int digits) {
  // printf rounds the exact binary value, ties to even, as Python's round().
  return std::strtod(fmt::format("{:.{}f}", v, digits).c_str(), nullptr);
}

std::string py_round(double v, int digits) { return py_float(py_round_value(v, digits)); }

char* put_dur_us(char* p, std::int64_t ns) {
  if (ns < 0 || ns >= 1000000000000000LL) return nullptr;
  p = put_ts_us(p, ns);
  while (p[-2] != '.' && p[-1] == '0') --p;
  return p;
}

std::string dur_us_json(std::int64_t ns) {
  char buf[24];
  if (char* end = put_dur_us(buf, ns)) return std::string(buf, end);
  return py_float(static_cast<double>(ns) / 1000.0);
}

std::string dur_us_fixed3(std::int64_t ns) {
  return fmt::format("{:.3f}", static_cast<double>(ns) / 1000.0);
}

void append_fixed(std::string& out, double v, int decimals) {
  // v * 10^decimals carries one rounding (relative 2^-53) on top of v; when
  // the product is farther than that error from a half, the exact decimal
  // rounds to its nearest integer n whatever the tie rule, and the text is
  // n with the point put in. Negative values (fmt's "-0.000") and the rest go
  // through fmt.
  static constexpr double scale[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
  if (decimals >= 1 && decimals <= 6 && !std::signbit(v) && v < 1e15 / scale[decimals]) {
    const double x = v * scale[decimals];
    const double n = std::floor(x + 0.5);
    if (std::fabs(x - n) + x * 0x1p-51 < 0.5) {
      auto u = static_cast<std::uint64_t>(n);
      char frac[6];
      for (int i = decimals - 1; i >= 0; --i) {
        frac[i] = static_cast<char>('0' + u % 10);
        u /= 10;
      }
      char buf[32];  // one append: the cells are many and short
      char* p = put_u64(buf, u);
      *p++ = '.';
      std::memcpy(p, frac, static_cast<std::size_t>(decimals));
      out.append(buf, static_cast<std::size_t>(p + decimals - buf));
      return;
    }
  }
  switch (decimals) {
    case 3: fmt::format_to(std::back_inserter(out), "{:.3f}", v); break;
    case 6: fmt::format_to(std::back_inserter(out), "{:.6f}", v); break;
    default: fmt::format_to(std::back_inserter(out), "{:.{}f}", v, decimals); break;
  }
}

std::string fewest3(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

namespace {

/// Away from a rounding boundary, plain doubles decide SQLite's rounding: the
/// 10^-digits of |v| + rounder, truncated, are floor(|v| * p10 + 0.5) when
/// that sum is more than its possible error (a few ulps, the margin has 18)
/// from an integer. That count of 10^-digits, or -1 near a boundary (or from
/// 10^15 on), where sql_round's digit-by-digit path decides as SQLite does.
double rounded_units(double v, double p10) {
  const double x = std::fabs(v) * p10 + 0.5;
  if (!(x < 1e15)) return -1;
  const double f = std::floor(x);
  const double frac = x - f;
  const double margin = x * 4e-15 + 1e-9;
  return frac > margin && frac < 1 - margin ? f : -1;
}

}  // namespace

double sql_round(double v, int digits) {
  // SQLite printf's arRound: 0.5 * 10^-digits as a literal, not a product.
  static constexpr double rounders[] = {5.0e-01, 5.0e-02, 5.0e-03, 5.0e-04, 5.0e-05,
                                        5.0e-06, 5.0e-07, 5.0e-08, 5.0e-09, 5.0e-10};
  digits = std::clamp(digits, 0, 9);
  double p10 = 1;
  for (int i = 0; i < digits; ++i) p10 *= 10;
  // Nothing to round beyond 2^52 (and NaN passes through), as ROUND does.
  if (!(std::fabs(v) <= 4503599627370496.0)) return v;
  if (const double f = rounded_units(v, p10); f >= 0) {
    const double out = f / p10;
    return out == 0 ? 0.0 : (v < 0 ? -out : out);
  }
  using ld = long double;
  ld r = std::fabs(v);
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  const int ex = -1023 + static_cast<int>((u >> 52) & 0x7ff);
  // The rounding term is a double, the value a long double (SQLite's printf).
  double rounder = rounders[digits];
  if (digits + ex / 3 < 15) rounder = static_cast<double>(rounder + r * static_cast<ld>(3e-16));
  r += rounder;
  // Normalize to [1, 10) with its decimal exponent, then take digits one by one.
  int exp = 0;
  if (r > 0) {
    ld scale = 1;
    while (r >= static_cast<ld>(1e100) * scale && exp <= 350) { scale *= static_cast<ld>(1e100); exp += 100; }
    while (r >= static_cast<ld>(1e10) * scale && exp <= 350) { scale *= static_cast<ld>(1e10); exp += 10; }
    while (r >= 10 * scale && exp <= 350) { scale *= 10; exp++; }
    r /= scale;
    while (r < static_cast<ld>(1e-8)) { r *= static_cast<ld>(1e8); exp -= 8; }
    while (r < 1) { r *= 10; exp--; }
  }
  // Up to 15 digits the digits make an integer that a double holds exactly,
  // and dividing it by 10^digits rounds as strtod rounds the text: the same
  // value without the text.
  if (exp + digits <= 14) {
    const ld r0 = r;
    std::uint64_t n = 0;
    bool ok = true;
    auto take = [&] {
      const int d = static_cast<int>(r);
      ok = ok && d >= 0 && d <= 9;  // a digit the text would not have: the slow path decides
      r = (r - d) * 10;
      n = n * 10 + static_cast<std::uint64_t>(d);
    };
    for (int e = exp; e >= 0; --e) take();
    int decimals = digits;
    for (int e = exp + 1; e < 0 && decimals > 0; ++e, --decimals) n *= 10;
    while (decimals-- > 0) take();
    if (ok) {
      const double out = static_cast<double>(n) / p10;
      return out == 0 ? 0.0 : (v < 0 ? -out : out);
    }
    r = r0;
  }
  int significant = 26;  // SQLite's "%!" digit budget
  auto digit = [&]() -> char {
    if (significant <= 0) return '0';
    --significant;
    const int d = static_cast<int>(r);
    r = (r - d) * 10;
    return static_cast<char>('0' + d);
  };
  std::string text = v < 0 ? "-" : "";
  if (exp < 0) text += '0';
  for (int e = exp; e >= 0; --e) text += digit();
  text += '.';
  int decimals = digits;
  for (int e = exp + 1; e < 0 && decimals > 0; ++e, --decimals) text += '0';
  while (decimals-- > 0) text += digit();
  const double out = std::strtod(text.c_str(), nullptr);
  return out == 0 ? 0.0 : out;  // SQLite prints no sign on zero
}

double sql_round3(double v) { return sql_round(v, 3); }

void append_round3_sql(std::string& out, double v) {
  // The rounded value is the double nearest to a decimal of 3 decimals,
  // n / 1000: below 1e12 that decimal has at most 15 significant digits, so
  // "%.15g" prints exactly it, trailing zeros removed; written here from n
  // without the general formatter. n is rounded_units' count when plain
  // doubles decide the rounding, else taken back from the rounded value.
  double n = std::fabs(v) <= 4503599627370496.0 ? rounded_units(v, 1000.0) : -1;
  const double r = n >= 0 ? (n == 0 || v > 0 ? n : -n) / 1000.0 : sql_round3(v);
  if (n < 0 && std::fabs(r) < 1e12) {
    n = std::nearbyint(std::fabs(r) * 1000.0);
    if (n / 1000.0 != std::fabs(r)) n = -1;
  }
  if (n >= 0) {
    const auto u = static_cast<std::uint64_t>(n);
    char buf[32];  // one append: the cells are many and short
    char* p = buf;
    if (r < 0) *p++ = '-';
    p = put_u64(p, u / 1000u);
    const unsigned f = static_cast<unsigned>(u % 1000u);
    *p++ = '.';
    *p++ = static_cast<char>('0' + f / 100);
    *p++ = static_cast<char>('0' + f / 10 % 10);
    *p++ = static_cast<char>('0' + f % 10);
    for (int k = 0; k < 2 && p[-1] == '0'; ++k) --p;  // "16.0", "0.5", "0.013"
    out.append(buf, static_cast<std::size_t>(p - buf));
    return;
  }
  const std::size_t from = out.size();
  fmt::format_to(std::back_inserter(out), "{:.15g}", r);
  if (std::string_view(out).substr(from).find_first_of(".en") == std::string_view::npos) out += ".0";
}

std::string round3_sql(double v) {
  std::string s;
  append_round3_sql(s, v);
  return s;
}

namespace {

// A decimal number as the exporters print them: [+-]digits[.digits][e[+-]digits].
bool is_decimal_number(std::string_view v) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
    return i - from;
  };
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
  std::size_t n = digits();
  if (i < v.size() && v[i] == '.') {
    ++i;
    n += digits();
  }
  if (n == 0) return false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == v.size();
}

}  // namespace

bool csv_formula_like(std::string_view v) {
  if (v.empty()) return false;
  const char c = v.front();
  if (c != '=' && c != '+' && c != '-' && c != '@' && c != '\t' && c != '\r') return false;
  if (v.back() == '\t') v.remove_suffix(1);  // timestamps carry msprof's trailing TAB
  return !is_decimal_number(v);               // "-1.5" is a number, not a formula
}

void append_csv_cell(std::string& out, std::string_view v) {
  const bool formula = csv_formula_like(v);
  // A plain loop: find_first_of searched the 4-character set once per character.
  const bool plain =
      std::none_of(v.begin(), v.end(), [](char c) { return c == ',' || c == '"' || c == '\n' || c == '\r'; });
  if (plain) {
    if (formula) out += '\'';
    out.append(v.data(), v.size());
    return;
  }
  out += '"';
  if (formula) out += '\'';
  for (std::size_t at = 0; at < v.size();) {  // each '"' doubled
    const std::size_t quote = v.find('"', at);
    const std::size_t end = quote == std::string_view::npos ? v.size() : quote + 1;
    out.append(v.data() + at, end - at);
    if (quote != std::string_view::npos) out += '"';
    at = end;
  }
  out += '"';
}

void append_json_escaped(std::string& out, std::string_view v) { json::append_escaped(out, v); }

void append_json_string(std::string& out, std::string_view v) {
  out += '"';
  append_json_escaped(out, v);
  out += '"';
}

std::pair<std::uint64_t, int> decimal_digits(const std::string& t) {
  std::uint64_t d = 0;
  int exp10 = 0, frac = 0;
  bool point = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '.') {
      point = true;
    } else if (c == 'e' || c == 'E') {
      exp10 = std::atoi(t.c_str() + i + 1);
      break;
    } else {
      d = d * 10 + static_cast<std::uint64_t>(c - '0');
      frac += point;
    }
  }
  return {d, exp10 - frac};
}

namespace {
__extension__ typedef __int128 i128;

/// a / b rounded half-even (b > 0).
i128 half_even(i128 a, i128 b) {
  const bool neg = a < 0;
  if (neg) a = -a;
  i128 q = a / b;
  const i128 r = a % b;
  if (2 * r > b || (2 * r == b && (q & 1))) ++q;
  return neg ? -q : q;
}

/// `q` thousandths as Decimal's str() prints them ("-0.005", "12.000").
std::string thousandths(i128 q) {
  const bool neg = q < 0;
  i128 a = neg ? -q : q;
  std::string digits;
  for (int i = 0; a != 0 || i < 4; ++i, a /= 10) {
    if (i == 3) digits += '.';
    digits += static_cast<char>('0' + static_cast<int>(a % 10));
  }
  if (neg) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits;
}
}  // namespace

std::string decimal_mean3(const std::vector<double>& values, std::size_t n) {
  // Each value exactly, in units of 10^-20 (str() gives at most 17 digits;
  // digits further down do not reach the third decimal); a value too large
  // for that falls back to the double sum.
  constexpr int unit = -20;
  i128 sum = 0;
  bool exact = n != 0;
  double fallback = 0;
  for (double v : values) {
    fallback += v;
    if (!std::isfinite(v) || std::fabs(v) >= 1e16) exact = false;
    if (!exact || v == 0) continue;
    auto [d, e] = decimal_digits(fmt::format("{}", std::fabs(v)));
    i128 x = d;
    for (; e > unit; --e) x *= 10;
    for (; e < unit; ++e) x /= 10;
    sum += v < 0 ? -x : x;
  }
  if (!exact) return n ? fmt::format("{:.3f}", fallback / static_cast<double>(n)) : std::string("0.000");
  i128 p17 = 1;
  for (int i = 0; i < 17; ++i) p17 *= 10;
  return thousandths(half_even(half_even(sum, p17), static_cast<i128>(n)));
}

}  // namespace convert
MSPROF_END_NAMESPACE
