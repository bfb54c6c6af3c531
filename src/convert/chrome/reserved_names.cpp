// SPDX-License-Identifier: MIT
// Lookup of the event names the DevTools trace engine treats specially
// (include/msprof/convert/chrome/reserved_names.hpp).
#include "msprof/convert/chrome/reserved_names.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

bool is_reserved_name(std::string_view n) noexcept {
  // Every event name is looked up and almost none is reserved: a table of the
  // reserved names' (first byte, length) pairs rejects most without a search.
  // Bit L of starts[c]: a name of length L starts with byte c (bit 63: 63 or longer).
  static const auto starts = [] {
    std::array<std::uint64_t, 256> t{};
    for (auto r : reserved_names)
      if (!r.empty()) t[static_cast<unsigned char>(r[0])] |= std::uint64_t{1} << std::min<std::size_t>(r.size(), 63);
    return t;
  }();
  if (!n.empty() && !(starts[static_cast<unsigned char>(n[0])] & (std::uint64_t{1} << std::min<std::size_t>(n.size(), 63))))
    return false;
  return std::binary_search(std::begin(reserved_names), std::end(reserved_names), n);
}

bool needs_name_suffix(std::string_view n) noexcept {
  constexpr std::string_view uma = "::UMA";
  return is_reserved_name(n) || (n.size() >= uma.size() && n.substr(n.size() - uma.size()) == uma);
}

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
