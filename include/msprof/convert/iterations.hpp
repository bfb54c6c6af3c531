// SPDX-License-Identifier: MIT
// Iterations (steps) from device ts_track step-trace records, as msprof's
// step-trace calculation builds them (reference: Ascend/msprof analysis,
// mscalculate/step_trace, commit 9ba1ac7be):
//
//   - step mode (torch_npu steps, model_id 4294967295): tag 60000 = step start,
//     tag 60001 = step end, paired by (model_id, indexId); the iteration id is
//     the indexId. A step with other than one start and one end is dropped
//     with a warning (the reference logs "step trace data is missing").
//   - model mode (graph models): per model_id in time order, tag 0 (model
//     start) opens an iteration, tag 1 (model end) closes it, tag 4 (iteration
//     end) closes it and opens the next; ids count from 1 per model. Tags 2/3
//     inside an iteration are FP start / BP end.
//
// Other tags (all-reduce >= 10000, GetNext >= 20000, mstx 11) are ignored.
#ifndef MSPROF_CONVERT_ITERATIONS_HPP
#define MSPROF_CONVERT_ITERATIONS_HPP

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Step-trace tag ids (StepTraceConstant).
namespace step_tag {
inline constexpr std::uint16_t model_start = 0;
inline constexpr std::uint16_t model_end = 1;
inline constexpr std::uint16_t fp_start = 2;
inline constexpr std::uint16_t bp_end = 3;
inline constexpr std::uint16_t iteration_end = 4;
inline constexpr std::uint16_t step_start = 60000;
inline constexpr std::uint16_t step_end = 60001;
}  // namespace step_tag

/// model_id of step-mode records ("no model").
inline constexpr std::uint32_t step_mode_model_id = 4294967295u;

namespace raw {

/// One ts_track step-trace record (funcType 10). load.hpp places the device
/// timestamp on the wall clock while reading (codec::device_info::monotonic_ns,
/// codec::time_ns::to_wall); records it cannot place never get here.
struct step_tag_record {
  std::uint32_t device_id = 0;
  std::uint64_t model_id = 0;
  std::uint64_t index_id = 0;
  std::uint16_t tag_id = 0;
  std::int64_t local_ns = 0;  ///< Unix-epoch ns
};

}  // namespace raw

/// Builds model::iterations from the records (sorted by device, then end);
/// problems go to `warnings`.
inline std::vector<iteration> build_iterations(std::vector<raw::step_tag_record> tags,
                                               std::vector<std::string>& warnings) {
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

/// The selected iterations' time range as msprof's iteration filter computes
/// it (MsprofIteration._get_iteration_time): for each iteration, from the end
/// of the latest iteration that ended before it started (none: from the
/// beginning) to its own end; the union over the selection.
struct iteration_range {
  std::int64_t lo = INT64_MIN;
  std::int64_t hi = INT64_MAX;
  /// An item [start, end] belongs to the range when it starts inside it or
  /// spans its beginning (the reference's SQL condition).
  bool contains(std::int64_t start, std::int64_t end) const noexcept {
    return (start >= lo && start <= hi) || (start <= lo && lo <= end);
  }
};

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_ITERATIONS_HPP
