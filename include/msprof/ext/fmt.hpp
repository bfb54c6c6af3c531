// SPDX-License-Identifier: MIT
// Optional {fmt} support for mstx messages. Include on purpose (links fmt::fmt);
// <msprof/mstx.hpp> itself stays std-only and its markf() never changes.
//
//   #include <msprof/ext/fmt.hpp>
//   msprof::fmt_mark("loss {:.3f}", loss);
//   msprof::fmt_mark_in<my_domain>("batch {} of {}", i, n);
#ifndef MSPROF_EXT_FMT_HPP
#define MSPROF_EXT_FMT_HPP

#include <fmt/format.h>

#include "../mstx.hpp"

MSPROF_BEGIN_NAMESPACE

// Formats into a bounded stack buffer, cut to the longest message the
// collector accepts (155 bytes), and marks it.
// Formatting errors are swallowed: instrumentation never throws.
template <class D, class... Args>
inline void fmt_mark_in(fmt::format_string<Args...> f, Args&&... args) noexcept {
  if constexpr (detail::domain_on<D>()) {
    char buf[formatted_message_buffer];
    try {
      auto r = fmt::format_to_n(buf, sizeof buf - 1, f, std::forward<Args>(args)...);
      *r.out = '\0';
      mark_in<D>(buf);
    } catch (...) {
    }
  } else {
    (void)f;
    ((void)args, ...);
  }
}
template <class... Args>
inline void fmt_mark(fmt::format_string<Args...> f, Args&&... args) noexcept {
  fmt_mark_in<default_domain>(f, std::forward<Args>(args)...);
}

MSPROF_END_NAMESPACE

#endif  // MSPROF_EXT_FMT_HPP
