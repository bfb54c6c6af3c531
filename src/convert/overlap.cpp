// SPDX-License-Identifier: MIT
// Overlap Analysis of a whole model (overlap.hpp).
#include "msprof/convert/overlap.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

MSPROF_BEGIN_NAMESPACE
namespace convert {

std::vector<overlap_interval> overlap_analysis(const model& m) {
  std::vector<overlap_interval> out;
  std::set<std::uint32_t> devs;
  for (const auto& t : m.tasks) devs.insert(t.device_id);
  for (std::uint32_t dev : devs) {
    std::vector<std::pair<std::int64_t, std::int64_t>> iv;
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& t : m.tasks) {
      if (t.device_id != dev) continue;
      lo = std::min(lo, t.start_ns);
      hi = std::max(hi, t.end_ns);
      if (t.op) iv.emplace_back(t.start_ns, t.end_ns);
    }
    std::sort(iv.begin(), iv.end());
    std::vector<overlap_interval> free;
    auto on_compute = [&](std::int64_t b, std::int64_t e) { out.push_back({dev, b, e, true}); };
    auto on_free = [&](std::int64_t b, std::int64_t e) { free.push_back({dev, b, e, false}); };
    overlap_merger merge(lo, hi);
    for (const auto& p : iv) merge.add(p.first, p.second, on_compute, on_free);
    merge.finish(on_compute, on_free);
    out.insert(out.end(), free.begin(), free.end());
  }
  return out;
}

}  // namespace convert
MSPROF_END_NAMESPACE
