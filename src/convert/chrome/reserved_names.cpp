// SPDX-License-Identifier: MIT
// Lookup of the event names the DevTools trace engine treats specially
// (include/msprof/convert/chrome/reserved_names.hpp).
#include "msprof/convert/chrome/reserved_names.hpp"

#include <algorithm>
#include <iterator>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

bool is_reserved_name(std::string_view n) noexcept {
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
