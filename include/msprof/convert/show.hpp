// SPDX-License-Identifier: MIT
// `msprof show`: the summaries as aligned terminal tables (op summary top-N by
// duration, op statistic, API statistic, mstx ranges, marks and threads, AI
// Core frequency), gathered window by window.
#ifndef MSPROF_CONVERT_SHOW_HPP
#define MSPROF_CONVERT_SHOW_HPP

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "model.hpp"
#include "spill.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

struct table;  // summary.hpp

/// Renders `t` with the chosen columns (indices into its header), at most
/// `max_rows` rows; `left_out` rows not in `t` are counted with the rest.
std::string render_table(const std::string& title, const table& t, const std::vector<std::size_t>& cols,
                         std::size_t max_rows, bool bold, std::size_t left_out = 0);

/// Records in a collection, counted window by window.
struct collection_counts {
  std::size_t apis = 0, tasks = 0, mstx = 0, mstx_mem = 0;
  void add(const model& w) noexcept;
};

/// One line of what a collection holds: record counts, the collector's losses
/// ("no losses" only when it counted and lost nothing), simulated device data.
/// `m` gives the session.
std::string collection_summary(const model& m, const collection_counts& n);

/// The same line for a whole model.
std::string collection_summary(const model& m);

/// What `msprof show` prints, gathered window by window (load_windows) so
/// memory does not grow with the records: the counts, the top ops by duration,
/// the op and API statistics, summed in the order of the summary files (op
/// rows and calls go through sorters on disk) so the numbers are theirs, and
/// the mstx ranges by domain and message (count, total, average, median, min,
/// max, share of time), marks and threads.
class show_collector {
 public:
  /// `top`: rows of the op summary and API statistic shown; sorted runs go to `spill_dir`.
  show_collector(std::size_t top, const std::string& spill_dir, std::size_t spill_budget = spill_budget_default);
  ~show_collector();
  show_collector(const show_collector&) = delete;
  show_collector& operator=(const show_collector&) = delete;

  void add(const model& w);

  /// The tables, after the last window; `final` is load_windows()' model. Once
  /// only. The host usage files' problems are added to `warnings`.
  result<std::string> text(const model& final, bool color, std::vector<std::string>& warnings);

 private:
  struct impl;  // show.cpp: the sorters, statistics and top ops
  std::unique_ptr<impl> p_;
};

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SHOW_HPP
