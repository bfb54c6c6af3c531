// SPDX-License-Identifier: MIT
// Overlap Analysis: per device, the op tasks' compute intervals merged and the
// free gaps between them (the timeline's "Overlap Analysis" process, OVERLAP_ANALYSIS).
#ifndef MSPROF_CONVERT_OVERLAP_HPP
#define MSPROF_CONVERT_OVERLAP_HPP

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Compute intervals (ops) merged, and the free gaps between the first task
/// start and the last task end, per device.
struct overlap_interval {
  std::uint32_t device_id = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool compute = true;
};

/// One device's overlap analysis, fed its compute intervals sorted by (start,
/// end): each merged interval goes to `compute(start, end)` once complete, each
/// gap between the first task start `lo` and the last task end `hi` that no
/// interval covers goes to `free(start, end)`; both in time order. Streams, so
/// the timeline exporter can merge intervals it reads back from disk.
class overlap_merger {
 public:
  overlap_merger(std::int64_t lo, std::int64_t hi) : cur_(lo), hi_(hi) {}

  template <class Compute, class Free>
  void add(std::int64_t start, std::int64_t end, Compute&& compute, Free&& free) {
    if (open_ && start <= end_) {
      end_ = std::max(end_, end);
      return;
    }
    close(compute, free);
    open_ = true;
    start_ = start;
    end_ = end;
  }
  /// After the last interval: the rest of the free time (only when some interval was seen).
  template <class Compute, class Free>
  void finish(Compute&& compute, Free&& free) {
    close(compute, free);
    if (any_ && hi_ > cur_) free(cur_, hi_);
  }

 private:
  template <class Compute, class Free>
  void close(Compute& compute, Free& free) {
    if (!open_) return;
    compute(start_, end_);
    if (start_ > cur_) free(cur_, start_);
    cur_ = std::max(cur_, end_);
    any_ = true;
    open_ = false;
  }

  std::int64_t cur_, hi_;  ///< end of the covered time so far; last task end
  std::int64_t start_ = 0, end_ = 0;  ///< the merged interval still growing
  bool open_ = false, any_ = false;
};

/// Per device (ascending): its compute intervals merged, then its free gaps.
std::vector<overlap_interval> overlap_analysis(const model& m);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_OVERLAP_HPP
