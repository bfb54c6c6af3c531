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

#include <climits>
#include <cstdint>
#include <string>
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
/// timestamp on the wall clock while reading (prof::device_info::monotonic_ns,
/// prof::time_ns::to_wall); records it cannot place never get here.
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
std::vector<iteration> build_iterations(std::vector<raw::step_tag_record> tags, std::vector<std::string>& warnings);

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
