// SPDX-License-Identifier: MIT
// Python's Decimal in its default context (28 significant digits, half-even):
// the few operations the reference's arithmetic uses (float_calculate's
// divisions and quantize, the host network usage), so that every exporter
// that copies it rounds the way Python does, in one place.
#ifndef MSPROF_CONVERT_PY_DECIMAL_HPP
#define MSPROF_CONVERT_PY_DECIMAL_HPP

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

__extension__ typedef unsigned __int128 py_decimal_coef;

/// A finite Decimal: coef × 10^exp, coef below 10^28.
struct py_decimal {
  py_decimal_coef coef = 0;
  int exp = 0;
  bool neg = false;

  /// Decimal(str(x)): the decimal text Python's str() prints for an int or a
  /// float ("42", "0.015625", "1e-05", "-3.5"), at most 19 digits.
  static py_decimal of_text(std::string_view text);
  static py_decimal of_int(std::int64_t v);
  static py_decimal of_uint(std::uint64_t v);
};

/// The decimal digits of `v`.
std::string decimal_digits_of(py_decimal_coef v);

/// The decimal digits of n × 2^twos × 5^fives (a number of any size).
std::string scaled_digits(py_decimal_coef n, int twos, int fives);

/// The Decimal quotient digits × 10^exp10 / d (d > 0, below 2^120; `digits`
/// of any length): the exact value rounded to 28 significant digits.
py_decimal divide_digits(std::string_view digits, int exp10, py_decimal_coef d, bool neg);

/// a / b at 28 digits; nullopt when b is 0 (Python raises) or its
/// coefficient is 2^120 or more.
std::optional<py_decimal> operator/(const py_decimal& a, const py_decimal& b);

/// a + b at 28 digits (half-even); nullopt when the two, aligned, would
/// need more than 37 digits (exponents far apart: not the times it adds).
std::optional<py_decimal> operator+(const py_decimal& a, const py_decimal& b);

/// Decimal.quantize(10^-places) (half-even); nullopt where Python raises
/// InvalidOperation (the result needs more than 28 digits).
std::optional<py_decimal> quantize(const py_decimal& v, int places);

/// The reference's float_calculate(values, '/') as SQLite or float() reads
/// its text: the values divided left to right, quantized to 3 decimals; 0
/// where it gives "0" (a zero divisor, a result past 28 digits).
double float_calculate_quotient(std::initializer_list<py_decimal> values);

/// str(Decimal) of a quantized value: its digits with `-exp` decimals ("0.667", "-70.000").
std::string to_text(const py_decimal& v);

/// float(Decimal), the nearest double (SQLite reads str() to the same).
double to_double(const py_decimal& v);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_PY_DECIMAL_HPP
