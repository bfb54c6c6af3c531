// SPDX-License-Identifier: MIT
// Splitting the chrome form into parts (include/msprof/convert/chrome/parts.hpp).
#include "msprof/convert/chrome/parts.hpp"

#include <algorithm>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

std::vector<cut> cut_parts(const plan& p, const std::vector<std::uint64_t>& cost, std::uint64_t budget,
                           const options& opt, std::size_t& steps_split) {
  const auto& ev = *p.ev;
  std::vector<cut> parts;
  std::vector<std::int64_t> steps = opt.step_starts_ns;
  std::sort(steps.begin(), steps.end());
  // is_boundary[k]: order[k] is the first event of a step.
  std::vector<std::uint8_t> is_boundary(p.order.size(), 0);
  {
    std::size_t s = 0;
    for (std::size_t k = 0; k < p.order.size(); ++k) {
      const std::int64_t ts = ev[p.order[k]].ts_ns;
      bool crossed = false;
      while (s < steps.size() && steps[s] <= ts) {
        ++s;
        crossed = true;
      }
      if (crossed) is_boundary[k] = 1;
    }
  }
  std::size_t begin = 0, last_boundary = 0;
  std::uint64_t acc = 0;
  for (std::size_t k = 0; k < p.order.size(); ++k) {
    if (is_boundary[k]) last_boundary = k;
    if (acc + cost[k] > budget && k > begin) {
      std::size_t at = k;
      if (!steps.empty()) {
        if (last_boundary > begin) {
          at = last_boundary;
        } else {
          ++steps_split;
        }
      }
      parts.push_back({begin, at});
      begin = at;
      acc = 0;
      for (std::size_t j = at; j < k; ++j) acc += cost[j];
    }
    acc += cost[k];
  }
  parts.push_back({begin, p.order.size()});
  return parts;
}

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
