// SPDX-License-Identifier: MIT
#include "msprof/convert/py_decimal.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "msprof/convert/text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace {

using u128 = py_decimal_coef;

u128 pow10(int n) {
  u128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

}  // namespace

py_decimal py_decimal::of_text(std::string_view text) {
  py_decimal v;
  v.neg = !text.empty() && text.front() == '-';
  if (v.neg) text.remove_prefix(1);
  const auto [d, e] = decimal_digits(std::string(text));
  v.coef = d;
  v.exp = e;
  return v;
}

py_decimal py_decimal::of_int(std::int64_t x) {
  py_decimal v;
  v.neg = x < 0;
  v.coef = v.neg ? static_cast<u128>(0 - static_cast<std::uint64_t>(x)) : static_cast<u128>(x);
  return v;
}

py_decimal py_decimal::of_uint(std::uint64_t x) {
  py_decimal v;
  v.coef = x;
  return v;
}

std::string decimal_digits_of(u128 v) {
  std::string s;
  do {
    s += static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  std::reverse(s.begin(), s.end());
  return s;
}

std::string scaled_digits(u128 n, int twos, int fives) {
  std::vector<std::uint32_t> w;  // 32-bit limbs, least significant first
  for (; n != 0; n >>= 32) w.push_back(static_cast<std::uint32_t>(n));
  const auto mul = [&](std::uint32_t m) {
    std::uint64_t carry = 0;
    for (auto& x : w) {
      const std::uint64_t p = static_cast<std::uint64_t>(x) * m + carry;
      x = static_cast<std::uint32_t>(p);
      carry = p >> 32;
    }
    if (carry != 0) w.push_back(static_cast<std::uint32_t>(carry));
  };
  for (; twos >= 16; twos -= 16) mul(1u << 16);
  if (twos > 0) mul(1u << twos);
  for (; fives >= 13; fives -= 13) mul(1220703125u);  // 5^13
  for (; fives > 0; --fives) mul(5);
  std::string s;  // 9 digits at a time, least significant first
  while (!w.empty()) {
    std::uint64_t rem = 0;
    for (std::size_t i = w.size(); i-- > 0;) {
      const std::uint64_t cur = (rem << 32) | w[i];
      w[i] = static_cast<std::uint32_t>(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    while (!w.empty() && w.back() == 0) w.pop_back();
    for (int k = 0; k < 9; ++k, rem /= 10) s += static_cast<char>('0' + static_cast<int>(rem % 10));
  }
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  std::reverse(s.begin(), s.end());
  return s.empty() ? "0" : s;
}

py_decimal divide_digits(std::string_view digits, int exp10, u128 d, bool neg) {
  py_decimal v;
  if (digits.find_first_not_of('0') == std::string_view::npos) return v;
  v.neg = neg;
  const int len = static_cast<int>(digits.size());
  u128 r = 0;
  int got = 0, first = 0, guard = 0;
  bool sticky = false;
  for (int i = 1; got < 29 || i <= len; ++i) {  // long division, digit i worth 10^(len - i + exp10)
    r = r * 10 + static_cast<unsigned>(i <= len ? digits[static_cast<std::size_t>(i - 1)] - '0' : 0);
    const int q = static_cast<int>(r / d);
    r %= d;
    if (got == 0 && q == 0) continue;
    if (got == 0) first = i;
    if (++got <= 28) v.coef = v.coef * 10 + static_cast<unsigned>(q);
    else if (got == 29) guard = q;
    else sticky |= q != 0;
  }
  sticky |= r != 0;
  v.exp = len - first - 27 + exp10;
  if (guard > 5 || (guard == 5 && (sticky || (v.coef & 1)))) ++v.coef;
  if (v.coef == pow10(28)) v.coef /= 10, ++v.exp;
  return v;
}

std::optional<py_decimal> operator/(const py_decimal& a, const py_decimal& b) {
  if (b.coef == 0 || b.coef >= (static_cast<u128>(1) << 120)) return std::nullopt;
  return divide_digits(decimal_digits_of(a.coef), a.exp - b.exp, b.coef, a.neg != b.neg);
}

std::optional<py_decimal> operator+(const py_decimal& a, const py_decimal& b) {
  const int e = std::min(a.exp, b.exp);
  const u128 p37 = pow10(37);
  const auto aligned = [&](const py_decimal& v) -> std::optional<u128> {
    u128 c = v.coef;
    for (int i = e; i < v.exp; ++i)
      if ((c *= 10) >= p37) return std::nullopt;
    return c;
  };
  const auto x = aligned(a), y = aligned(b);
  if (!x || !y) return std::nullopt;
  py_decimal s;
  s.exp = e;
  if (a.neg == b.neg) {
    s.coef = *x + *y;
    s.neg = a.neg;
  } else {
    s.neg = *x >= *y ? a.neg : b.neg;
    s.coef = *x >= *y ? *x - *y : *y - *x;
    if (s.coef == 0) s.neg = false;
  }
  int cut = 0;  // digits past 28, rounded away as the context rounds
  for (u128 c = s.coef; c >= pow10(28); c /= 10) ++cut;
  if (cut == 0) return s;
  return quantize(s, -(s.exp + cut));
}

std::optional<py_decimal> quantize(const py_decimal& v, int places) {
  const u128 p28 = pow10(28);
  py_decimal q{v.coef, -places, v.neg};
  const int shift = v.exp + places;  // digits to add (> 0) or to round away (< 0)
  if (shift >= 0) {
    for (int i = 0; i < shift; ++i)
      if ((q.coef *= 10) >= p28) return std::nullopt;
  } else if (-shift > 30) {
    q.coef = 0;  // below half of the last place: coef < 10^28
  } else {
    const u128 div = pow10(-shift);
    const u128 rem = v.coef % div;
    q.coef = v.coef / div;
    if (rem * 2 > div || (rem * 2 == div && (q.coef & 1))) ++q.coef;
    if (q.coef >= p28) return std::nullopt;
  }
  return q;
}

double float_calculate_quotient(std::initializer_list<py_decimal> values) {
  std::optional<py_decimal> q;
  for (const auto& v : values) {
    q = q ? *q / v : v;
    if (!q) return 0;
  }
  q = q ? quantize(*q, 3) : std::nullopt;
  return q ? to_double(*q) : 0;
}

std::string to_text(const py_decimal& v) {
  std::string t = decimal_digits_of(v.coef);
  if (v.exp > 0) {
    t.append(static_cast<std::size_t>(v.exp), '0');
  } else if (v.exp < 0) {
    const auto decimals = static_cast<std::size_t>(-v.exp);
    if (t.size() <= decimals) t.insert(0, decimals + 1 - t.size(), '0');
    t.insert(t.size() - decimals, ".");
  }
  return v.neg ? "-" + t : t;
}

double to_double(const py_decimal& v) {
  const double d = std::strtod((decimal_digits_of(v.coef) + "e" + std::to_string(v.exp)).c_str(), nullptr);
  return v.neg ? -d : d;
}

}  // namespace convert
MSPROF_END_NAMESPACE
