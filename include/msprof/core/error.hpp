// SPDX-License-Identifier: MIT
// Errors as values for codecs, writers and converters (instrumentation never
// reports errors). Every error carries a stable id and a message that names the
// file and the place: "[msprof.codec.truncated] host/data/x.slice_0: record at
// offset 4096 needs 40 bytes, 17 remain".
#ifndef MSPROF_CORE_ERROR_HPP
#define MSPROF_CORE_ERROR_HPP

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>

#include "abi.hpp"

MSPROF_BEGIN_NAMESPACE

/// Error categories. The string form is the stable id printed in messages.
enum class errc : unsigned char {
  ok = 0,
  io,              ///< a file could not be opened, read, written or renamed
  not_found,       ///< a required file or directory does not exist
  truncated,       ///< input ends inside a record
  bad_magic,       ///< a record does not start with the expected magic number
  bad_size,        ///< a size field is impossible for the data around it
  bad_value,       ///< a field holds a value outside its documented range
  parse,           ///< a text file (JSON, dictionary, log) does not parse
  invalid_argument,///< a caller or command-line argument is not acceptable
  unsupported,     ///< valid input that this version does not handle
  limit,           ///< a configured limit (storage, size) was reached
  count_
};

/// The stable id of an error category, e.g. "truncated".
constexpr const char* errc_name(errc e) noexcept {
  constexpr const char* names[] = {"ok",        "io",        "not_found", "truncated",
                                   "bad_magic", "bad_size",  "bad_value", "parse",
                                   "invalid_argument", "unsupported", "limit"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(errc::count_),
                "errc names out of sync");
  return names[static_cast<std::size_t>(e)];
}

/// An error: a category plus a human message that names the file and the place.
struct error {
  errc code = errc::ok;
  std::string message;

  /// "[msprof.<id>] <message>", the form printed to users.
  std::string what() const { return std::string("[msprof.") + errc_name(code) + "] " + message; }
};

/// A value or an error. [[nodiscard]] so a failure cannot be ignored by accident.
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : ok_(true), value_(std::move(value)) {}  // NOLINT: implicit by design
  result(error e) : ok_(false), error_(std::move(e)) {}     // NOLINT: implicit by design

  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return std::move(value_); }
  T& operator*() & { return value_; }
  const T& operator*() const& { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }
  const error& err() const noexcept { return error_; }

 private:
  bool ok_;
  T value_{};
  error error_{};
};

/// result<void>: success or an error.
template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(error e) : ok_(false), error_(std::move(e)) {}  // NOLINT: implicit by design
  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const error& err() const noexcept { return error_; }

 private:
  bool ok_ = true;
  error error_{};
};

/// Builds an error; the one place errors are made, so they all look alike.
inline error make_error(errc code, std::string message) { return error{code, std::move(message)}; }

MSPROF_END_NAMESPACE

/// Returns the error of `expr` (a result) from the enclosing function.
#define MSPROF_TRY(expr)                                  \
  do {                                                    \
    auto&& msprof_detail_try_ = (expr);                   \
    if (!msprof_detail_try_) return msprof_detail_try_.err(); \
  } while (0)

/// Assigns the value of `expr` (a result) to `lhs`, or returns its error.
#define MSPROF_TRY_ASSIGN(lhs, expr)                      \
  do {                                                    \
    auto&& msprof_detail_try_ = (expr);                   \
    if (!msprof_detail_try_) return msprof_detail_try_.err(); \
    lhs = std::move(*msprof_detail_try_);                 \
  } while (0)

#endif  // MSPROF_CORE_ERROR_HPP
