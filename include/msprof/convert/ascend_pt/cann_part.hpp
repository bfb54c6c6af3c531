// SPDX-License-Identifier: MIT
// The CANN part of a `*_ascend_pt` directory as analyse needs it, gathered
// from the PROF_ loader's windows (load.hpp, load_windows) so that no record
// of the PROF_ directory is held: the kernels of each launch (what links
// framework ops to the device), and for the text outputs the rows of
// kernel_details / task_time, the statistics, the Overlap Analysis and the
// timeline's events, each in sorted runs (spill.hpp) until it is read.
//
//   cann_part c(spill_dir, true);
//   auto final = load_windows(prof_dir, lo, {}, {[&](model& w) { c.add_ops(w); },
//                                                [&](model& w) { c.add_tasks(w); }});
//   c.finish(*final);
//   relation r = link(d, c.take_acl());
//
// Definitions: src/convert/ascend_pt/cann_part.cpp.
#ifndef MSPROF_CONVERT_ASCEND_PT_CANN_PART_HPP
#define MSPROF_CONVERT_ASCEND_PT_CANN_PART_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../../core/error.hpp"
#include "../aicpu.hpp"
#include "../l2_cache.hpp"
#include "../model.hpp"
#include "../overlap.hpp"
#include "../spill.hpp"
#include "../summary.hpp"
#include "../timeline_json.hpp"
#include "analyse.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace ascend_pt {

class cann_part {
 public:
  /// `kernels`: keep each launch's kernels (take_acl(); not needed when the
  /// directory has no CPU activity: nothing links to them). `text`: keep what
  /// the text outputs need. Sorted runs spill into `spill_dir`; `budget` is
  /// shared by the sorters.
  cann_part(const std::string& spill_dir, bool kernels, bool text, std::size_t budget = 2 * spill_budget_default);
  cann_part(const cann_part&) = delete;
  cann_part& operator=(const cann_part&) = delete;

  /// Every window, in load order (or a whole model as one window), to both
  /// halves. They share nothing, so two threads can each take one: add_ops
  /// the launches' kernels, op_summary's rows, the API statistics and the AI
  /// CPU and L2 names; add_tasks the timeline's events, task_time's rows and
  /// the overlap.
  void add_ops(const model& w);
  void add_tasks(const model& w);
  /// After the last window: `final` gives the session (load_windows' result).
  void finish(const model& final);

  /// Kernels by the launch that made them, a sorted run (link() takes it;
  /// null without `kernels`). Once.
  std::unique_ptr<launch_runs> take_acl();

  // Text outputs: each drain once, after finish().

  /// op_summary's header (with the session's PMU columns).
  std::vector<std::string> op_summary_header() const;
  /// op_summary rows (every cell, the wait cell included) in op_summary order.
  /// Feeds op_statistic.
  result<void> drain_op_summary(const std::function<result<void>(table::row&)>& row);
  std::size_t op_summary_rows() const noexcept;
  /// op_statistic, once drain_op_summary() has run.
  table op_statistic() const;
  /// api_statistic.
  result<table> api_statistic();
  /// task_time rows in task_time order (device, then start).
  result<void> drain_task_time(const std::function<result<void>(table::row&)>& row);
  std::size_t task_time_rows() const noexcept;
  /// Overlap Analysis intervals: per device, its merged compute intervals and free gaps.
  result<void> drain_overlap(const std::function<void(const overlap_interval&)>& iv);
  /// msprof_<ts>.json's events (the CANN part of trace_view.json).
  timeline_collector& timeline() noexcept { return *timeline_; }
  /// The AI_CPU tasks' op names (data_preprocess.csv's nodes; aicpu.hpp).
  const aicpu_names& aicpu() const noexcept { return aicpu_; }
  /// The ops of (stream, task) (l2_cache.csv and soc_pmu.csv Op Name; l2_cache.hpp).
  const l2_cache_names& l2_names() const noexcept { return l2_names_; }
  /// Keeps them from now on (for those files) when `prof_dir` has L2 cache or SoC PMU slices.
  void want_l2_names(const std::string& prof_dir) { l2_names_ = l2_cache_names(prof_dir); }

 private:
  aicpu_names aicpu_;
  l2_cache_names l2_names_;
  struct pending_kernel {
    std::uint64_t global_task_id;
    kernel_ref k;
  };
  bool kernels_, text_;
  std::optional<pmu_columns> pmu_;
  // Kernels: each launch's first HostToDevice task, until its API call comes.
  std::map<std::uint64_t, pending_kernel> pending_;  ///< connection id -> first task so far
  std::unique_ptr<launch_runs> acl_;
  // Text.
  std::optional<spill_sorter<task_row_key>> op_rows_;
  std::optional<spill_sorter<task_time_key>> task_rows_;
  std::optional<api_statistic_stream> apis_;
  std::optional<overlap_windows> overlap_;
  std::optional<timeline_collector> timeline_;
  op_statistic_groups op_groups_;
};

}  // namespace ascend_pt
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_ASCEND_PT_CANN_PART_HPP
