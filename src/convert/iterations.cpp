// SPDX-License-Identifier: MIT
#include "msprof/convert/iterations.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

MSPROF_BEGIN_NAMESPACE
namespace convert {

std::vector<iteration> build_iterations(std::vector<raw::step_tag_record> tags, std::vector<std::string>& warnings) {
  std::vector<iteration> out;
  std::stable_sort(tags.begin(), tags.end(), [](const auto& a, const auto& b) {
    return std::tie(a.device_id, a.model_id, a.local_ns) < std::tie(b.device_id, b.model_id, b.local_ns);
  });

  // Step mode: pair start/end by (device, model, index).
  struct pair_state {
    std::vector<std::int64_t> starts, ends;
  };
  std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>, pair_state> steps;
  for (const auto& t : tags) {
    if (t.tag_id != step_tag::step_start && t.tag_id != step_tag::step_end) continue;
    auto& p = steps[{t.device_id, t.model_id, t.index_id}];
    (t.tag_id == step_tag::step_start ? p.starts : p.ends).push_back(t.local_ns);
  }
  for (const auto& [k, p] : steps) {
    const auto& [dev, model_id, index] = k;
    if (p.starts.size() != 1 || p.ends.size() != 1 || p.ends[0] <= p.starts[0]) {
      warnings.push_back("device " + std::to_string(dev) + ": step " + std::to_string(index) + " of model " +
                         std::to_string(model_id) + " has " + std::to_string(p.starts.size()) + " start and " +
                         std::to_string(p.ends.size()) + " end step-trace record(s); step dropped");
      continue;
    }
    iteration it;
    it.device_id = dev;
    it.model_id = static_cast<std::uint32_t>(model_id);
    it.iteration_id = static_cast<std::uint32_t>(index);
    it.start_ns = p.starts[0];
    it.end_ns = p.ends[0];
    out.push_back(it);
  }

  // Model mode: a state machine per (device, model) in time order.
  std::size_t i = 0;
  while (i < tags.size()) {
    std::size_t j = i;
    while (j < tags.size() && tags[j].device_id == tags[i].device_id && tags[j].model_id == tags[i].model_id) ++j;
    bool open = false;
    iteration cur;
    std::uint32_t next_id = 1;
    for (std::size_t k = i; k < j; ++k) {
      const auto& t = tags[k];
      const std::int64_t ts = t.local_ns;
      auto start = [&] {
        cur = iteration{};
        cur.device_id = t.device_id;
        cur.model_id = static_cast<std::uint32_t>(t.model_id);
        cur.iteration_id = next_id;
        cur.start_ns = ts;
        open = true;
      };
      auto finish = [&] {
        cur.end_ns = ts;
        if (cur.end_ns > cur.start_ns) out.push_back(cur);
        ++next_id;
        open = false;
      };
      switch (t.tag_id) {
        case step_tag::model_start:
          if (!open) start();
          break;
        case step_tag::model_end:
          if (open) finish();
          break;
        case step_tag::iteration_end:
          if (open) {
            finish();
            start();
          }
          break;
        case step_tag::fp_start:
          if (open && cur.fp_ns == 0) cur.fp_ns = ts;  // first FP of the iteration
          break;
        case step_tag::bp_end:
          if (open) cur.bp_ns = ts;  // last BP of the iteration
          break;
        default: break;
      }
    }
    i = j;
  }

  std::stable_sort(out.begin(), out.end(), [](const iteration& a, const iteration& b) {
    return std::tie(a.device_id, a.end_ns) < std::tie(b.device_id, b.end_ns);
  });
  // Data augmentation bound: FP start minus the end of the closest earlier
  // iteration (by end) of the same device that ended before it.
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (out[k].fp_ns == 0) continue;
    for (std::size_t p = k; p-- > 0;) {
      if (out[p].device_id != out[k].device_id) break;
      if (out[p].end_ns < out[k].fp_ns) {
        out[k].data_aug_ns = out[k].fp_ns - out[p].end_ns;
        break;
      }
    }
  }
  return out;
}

}  // namespace convert
MSPROF_END_NAMESPACE
