// SPDX-License-Identifier: MIT
// The collector's buffers as users set them, in one place for every way in:
// launcher flags (--buffer-size, --buffer-limit, --buffer-full), the
// environment the launcher hands to the injection library (MSPROF_BUFFER_SIZE,
// MSPROF_BUFFER_LIMIT, MSPROF_BUFFER_FULL) and session_config's fields.
// docs/configuration.md, "Buffers", says what each does.
#ifndef MSPROF_SESSION_BUFFER_OPTIONS_HPP
#define MSPROF_SESSION_BUFFER_OPTIONS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "../collect/options.hpp"
#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

inline constexpr std::uint64_t min_buffer_bytes = std::uint64_t{4} << 10;
inline constexpr std::uint64_t max_buffer_bytes = std::uint64_t{1} << 40;

struct buffer_options {
  std::size_t ring_bytes = 0;                     ///< per thread; 0 = the collector's (1 MiB)
  std::size_t limit = 0;                          ///< all threads (grow); 0 = collect::default_buffer_limit
  std::optional<collect::overflow_policy> full;   ///< empty = the collector's (grow)
};

/// "<n>KB", "<n>MB" or "<n>GB" (also lower case; binary units) in bytes.
inline std::optional<std::uint64_t> parse_byte_size(std::string_view s) {
  std::uint64_t n = 0;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (n > (max_buffer_bytes >> 10)) return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(s[i] - '0');
  }
  if (i == 0) return std::nullopt;
  const std::string_view unit = s.substr(i);
  unsigned shift = 0;
  if (unit == "KB" || unit == "kb") shift = 10;
  else if (unit == "MB" || unit == "mb") shift = 20;
  else if (unit == "GB" || unit == "gb") shift = 30;
  else return std::nullopt;
  if (n > (max_buffer_bytes >> shift)) return std::nullopt;
  return n << shift;
}

/// "grow", "block" or "drop".
inline std::optional<collect::overflow_policy> parse_full_policy(std::string_view s) {
  if (s == "grow") return collect::overflow_policy::grow;
  if (s == "block") return collect::overflow_policy::block;
  if (s == "drop") return collect::overflow_policy::drop_newest;
  return std::nullopt;
}

/// One setting from its text; `what` names it in the message (a flag or a variable).
/// Empty text leaves the default. The message says what is expected.
inline std::string parse_buffer_setting(buffer_options& b, std::string_view which, std::string_view text,
                                        std::string_view what) {
  if (text.empty()) return {};
  if (which == "full") {
    if (auto p = parse_full_policy(text)) {
      b.full = p;
      return {};
    }
    return std::string(what) + " must be grow, block or drop, got '" + std::string(text) + "'";
  }
  const auto n = parse_byte_size(text);
  if (!n || *n < min_buffer_bytes)
    return std::string(what) + " must be a size of at least 4KB such as 512KB, 4MB or 1GB, got '" + std::string(text) + "'";
  (which == "size" ? b.ring_bytes : b.limit) = static_cast<std::size_t>(*n);
  return {};
}

/// The settings together: a limit below one thread's ring is refused.
inline std::string check_buffer_options(const buffer_options& b) {
  const std::size_t ring = b.ring_bytes != 0 ? b.ring_bytes : collect::default_policy::ring_bytes;
  const std::size_t limit = b.limit != 0 ? b.limit : collect::default_buffer_limit;
  if (limit < ring)
    return "the buffer limit (" + std::to_string(limit) + " bytes) is below one thread's buffer size (" +
           std::to_string(ring) + " bytes)";
  return {};
}

/// The collector options these settings change.
inline void apply(const buffer_options& b, collect::options& o) {
  o.ring_bytes = b.ring_bytes;
  o.buffer_limit = b.limit;
  if (b.full) o.overflow = b.full;
}

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_BUFFER_OPTIONS_HPP
