// SPDX-License-Identifier: MIT
// Errors as values for codecs, writers and converters (instrumentation never
// reports errors). Every error carries a stable id and a message that names the
// file and the place: "[msprof.codec.truncated] host/data/x.slice_0: record at
// offset 4096 needs 40 bytes, 17 remain".
#ifndef MSPROF_CORE_ERROR_HPP
#define MSPROF_CORE_ERROR_HPP

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
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

/// Thrown by result<T>::value() on an error (when exceptions are on).
struct bad_result_access : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {
/// The value of a failed result was asked for: a bug in the caller.
[[noreturn]] inline void bad_result_access(const error& e) {
  const std::string what = "msprof: value() of a failed result: " + e.what();
#if MSPROF_USE_EXCEPTIONS
  throw ::msprof::bad_result_access(what);
#else
  std::fprintf(stderr, "%s\n", what.c_str());
  std::abort();
#endif
}
}  // namespace detail

/// A value or an error. [[nodiscard]] so a failure cannot be ignored by accident.
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : ok_(true), value_(std::move(value)) {}  // NOLINT: implicit by design
  result(error e) : ok_(false), error_(std::move(e)) {}     // NOLINT: implicit by design

  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  /// The value; on an error, throws (MSPROF_USE_EXCEPTIONS) or aborts, naming it.
  T& value() & { return check(), value_; }
  const T& value() const& { return check(), value_; }
  T&& value() && { return check(), std::move(value_); }
  /// Unchecked access, as std::optional's; checked when MSPROF_DEVELOPMENT_CHECKS.
  T& operator*() & { return dev_check(), value_; }
  const T& operator*() const& { return dev_check(), value_; }
  T* operator->() { return dev_check(), &value_; }
  const T* operator->() const { return dev_check(), &value_; }
  const error& err() const noexcept { return error_; }

 private:
  void check() const {
    if (!ok_) detail::bad_result_access(error_);
  }
  void dev_check() const {
#if MSPROF_DEVELOPMENT_CHECKS
    check();
#endif
  }

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
