// SPDX-License-Identifier: MIT
// Number and string formatting exactly as msprof's exporters print them
// (ts strings with 3 decimals, "fewest digits" statistics, CSV quoting).
#ifndef MSPROF_CONVERT_TEXT_HPP
#define MSPROF_CONVERT_TEXT_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Decimal digits of `v`.
void append_u64(std::string& out, std::uint64_t v);
/// The same digits written at `p` (20 at most); returns their end. For
/// formatters that fill a buffer of known bound and append it once.
char* put_u64(char* p, std::uint64_t v);

/// Local ns -> "1767268800000200.000" (µs with exactly 3 decimals, no rounding:
/// msprof inserts a dot into the ns integer).
void append_ts_us(std::string& out, std::int64_t ns);
/// The same text written at `p` (22 bytes at most); returns its end.
char* put_ts_us(char* p, std::int64_t ns);
std::string ts_us(std::int64_t ns);

/// Shortest round-trip form of a double, always with a decimal point
/// (Python's repr: 40.0, 60.5).
std::string py_float(double v);

/// Python's round(v, digits) (0 <= digits <= 17): the exact binary value
/// rounded, ties to even.
double py_round_value(double v, int digits);

/// py_round_value as str() prints it ("0.333333", "3e-06", "-0.0").
std::string py_round(double v, int digits);

/// A duration in ns as a JSON number in µs ("40.0", "60.5"): py_float(ns / 1000.0).
std::string dur_us_json(std::int64_t ns);
/// The same text written at `p` when 0 <= ns < 10^15 (returns its end), else
/// nullptr and nothing written: there ns / 1000 has at most 15 significant
/// digits and 3 decimals, so its shortest round-trip form is that decimal
/// without trailing zeros, and no double formatting is needed.
char* put_dur_us(char* p, std::int64_t ns);

/// A duration in ns as "40.000".
std::string dur_us_fixed3(std::int64_t ns);

/// fmt's "{:.<decimals>f}" of `v` (the same bytes), appended; without fmt for
/// the common case (v >= 0, not within rounding error of a tie).
void append_fixed(std::string& out, double v, int decimals);

/// Rounded to 3 decimals, trailing zeros removed, integer values without a
/// point ("100.5", "40", "46.636") - op_statistic/api_statistic cells.
std::string fewest3(double v);

/// SQLite's ROUND(v, 3) as the reference's SQLite (3.40) computes it: the
/// value plus 0.0005 (and 3e-16 of itself, for decimal ties that binary cannot
/// hold exactly), cut after the third decimal, in x87 long double; so an exact
/// tie rounds up ("0.3125" -> 0.313), away from zero.
double sql_round3(double v);
/// SQLite's ROUND(v, digits) likewise (0 <= digits <= 9; the rounder
/// 0.5 * 10^-digits).
double sql_round(double v, int digits);

/// sql_round3 printed as SQLite prints a REAL (15 significant digits, at least
/// one decimal: "16.0", "0.013") - the PMU cells, which the reference reads
/// back from its SQLite table.
std::string round3_sql(double v);
void append_round3_sql(std::string& out, double v);

/// The decimal text `t` (digits, a point, an exponent; at most 19 digits) as
/// d * 10^exp10.
std::pair<std::uint64_t, int> decimal_digits(const std::string& t);

/// The reference's float_calculate([float_calculate(values), n], '/'):
/// Python's Decimal of each value's str() summed, quantized to 3 decimals,
/// over `n`, quantized again (both half-even), as str() prints it
/// ("5450315.042"); "0.000" without values.
std::string decimal_mean3(const std::vector<double>& values, std::size_t n);

/// Whether a spreadsheet would run `v` as a formula: it starts with = + - @,
/// TAB or CR and is not a decimal number ("-1.5" stays a number).
bool csv_formula_like(std::string_view v);

/// One CSV cell: quoted (with doubled quotes) when it holds , " or a newline;
/// a csv_formula_like() cell gets a leading single quote (OWASP rule), so a
/// spreadsheet shows it as text instead of running it.
void append_csv_cell(std::string& out, std::string_view v);

/// The inside of a JSON string literal (UTF-8 passed through; control chars
/// escaped). Plain runs are appended whole: names are long and rarely need escaping.
void append_json_escaped(std::string& out, std::string_view v);

/// JSON string literal.
void append_json_string(std::string& out, std::string_view v);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_TEXT_HPP
